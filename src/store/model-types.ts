import type { DecodedAudio } from '../audio/types.js'

export type { DecodedAudio }

/**
 * Voice models as the service sees them. The Fish wire shape (`ModelEntity`) is built from these in
 * `entity.ts`; the database shape lives in `src/store/db/schema.ts`.
 */
export const MODEL_TYPES = ['svc', 'tts'] as const
export const TRAIN_MODES = ['fast', 'full'] as const
export const VISIBILITIES = ['public', 'unlist', 'private'] as const
export const MODEL_STATES = ['created', 'training', 'trained', 'failed'] as const
export const SORT_KEYS = ['score', 'task_count', 'created_at'] as const

export type ModelType = (typeof MODEL_TYPES)[number]
export type TrainMode = (typeof TRAIN_MODES)[number]
export type Visibility = (typeof VISIBILITIES)[number]
export type ModelState = (typeof MODEL_STATES)[number]
export type SortKey = (typeof SORT_KEYS)[number]

/** Signal measurements of one voice sample; the keys are the wire keys of `quality.audios[].quality`. */
export interface SampleMeasurements {
  /** Hz, as stored in the file. */
  readonly sample_rate: number
  readonly channels: number
  /** Container/codec the decoder recognised: `wav`, `mp3`, `flac`, … */
  readonly format: string
  /** Highest absolute sample value, 0..1. */
  readonly peak?: number
  /** Fraction of samples at (or within 0.1 % of) full scale. */
  readonly clipping_ratio?: number
  /** RMS level of the whole sample, dBFS. */
  readonly rms_dbfs?: number
  /** Fraction of 20 ms frames quieter than -50 dBFS. */
  readonly silence_ratio?: number
  /** Loud frames against quiet frames (90th vs 10th percentile energy), dB, capped at 60. */
  readonly snr_db?: number
}

/** One entry of `quality.audios`, exactly as serialized. */
export interface AudioQualityEntry {
  readonly filename: string
  readonly duration_ms: number
  /** Language of the sample's transcript; `unknown` when there is none or it is unclear. */
  readonly language: string
  readonly quality: SampleMeasurements
  readonly quality_passed: boolean
  /** Why the sample failed the check; empty when it passed or was not checked yet. */
  readonly quality_reason: string
}

export interface QualityReport {
  readonly created_at: string
  readonly updated_at: string
  readonly audios: readonly AudioQualityEntry[]
}

/** A stored voice sample (the `samples` JSON column). */
export interface StoredSample {
  /** Blob key, `models/<id>/voice-<n>.<ext>`. */
  readonly key: string
  /** The name the client sent (or `voice-<n>.<ext>` when it sent none). */
  readonly filename: string
  readonly contentType: string
  readonly size: number
  /** Transcript of the sample, empty when the client sent none. */
  readonly text: string
}

export interface ModelRecord {
  readonly id: string
  readonly accountId: string
  readonly authorNickname: string
  readonly type: ModelType
  readonly title: string
  readonly description: string
  /** Blob key of the cover image, empty when there is none. */
  readonly coverKey: string
  /** What the creator asked for; the wire always says `fast` (see docs/decisions.md). */
  readonly trainMode: TrainMode
  readonly state: ModelState
  /** Why training failed; empty otherwise. */
  readonly stateReason: string
  readonly visibility: Visibility
  readonly tags: readonly string[]
  readonly languages: readonly string[]
  readonly titleLanguage: string
  readonly samples: readonly StoredSample[]
  readonly quality: QualityReport
  /** Voice profile from the analysis step (issue 6); null until then. */
  readonly profile: unknown
  /** Engine voice of a built-in model, e.g. `festival/slt`; null for user models. */
  readonly builtinVoice: string | null
  readonly defaultText: string
  readonly enhanceAudioQuality: boolean
  readonly likeCount: number
  readonly markCount: number
  readonly sharedCount: number
  readonly taskCount: number
  readonly score: number
  readonly createdAt: string
  readonly updatedAt: string
}

/** A file the client sent: bytes plus the name it gave (if any) and its declared media type. */
export interface Upload {
  readonly filename: string
  readonly bytes: Uint8Array
  readonly mimetype?: string
}

export interface CreateModelInput {
  readonly type: ModelType
  readonly title: string
  readonly trainMode: TrainMode
  readonly visibility: Visibility
  readonly description: string
  readonly voices: readonly Upload[]
  /** One per voice at most; missing entries are empty transcripts. */
  readonly texts: readonly string[]
  readonly tags: readonly string[]
  readonly coverImage?: Upload
  readonly enhanceAudioQuality: boolean
}

/** PATCH fields; absent means "leave as is". `coverImage: null` removes the cover. */
export interface UpdateModelInput {
  readonly title?: string
  readonly description?: string
  readonly visibility?: Visibility
  readonly tags?: readonly string[]
  readonly coverImage?: Upload | null
}

export interface ListModelsQuery {
  readonly pageSize: number
  readonly pageNumber: number
  /** Case-insensitive substring of the title. */
  readonly title?: string
  /** A model matches when it has ANY of these tags (case-insensitive). */
  readonly tags: readonly string[]
  /** Only the caller's own models, of every visibility. */
  readonly self: boolean
  /** Public models of that account; ignored when `self`. */
  readonly authorId?: string
  /** A model matches when it speaks ANY of these languages. */
  readonly languages: readonly string[]
  readonly titleLanguages: readonly string[]
  readonly sortBy: SortKey
}

export interface ModelPage {
  readonly total: number
  readonly items: readonly ModelRecord[]
}

/** `decodeAudio` from `src/audio/decode.ts`; injected so the service can be tested without real files. */
export type DecodeAudio = (
  bytes: Uint8Array,
  options?: { name?: string; loc?: readonly string[]; maxSeconds?: number },
) => Promise<DecodedAudio>
