import { randomBytes } from 'node:crypto'
import { SpeechError, type ValidationIssue } from '../../errors.js'
import type { BlobStore } from '../../store/blob/types.js'
import type { Db } from '../../store/db/database.js'
import type { ModelRepository } from '../../store/db/repositories/models.js'
import type { BlobsTable } from '../../store/db/schema.js'
import { audioMedia, detectLanguage, sniffImage } from './media.js'
import { QUALITY_LIMITS } from './measure.js'
import type {
  AudioQualityEntry,
  CreateModelInput,
  DecodeAudio,
  DecodedAudio,
  ModelRecord,
  StoredSample,
} from '../../store/model-types.js'

export interface CreateDeps {
  readonly repo: ModelRepository
  readonly blobs: BlobStore
  readonly decode: DecodeAudio
  readonly minSampleSeconds: number
  readonly maxSampleSeconds: number
  /** Queues the model's training in the transaction that inserts it (`trx`). */
  readonly enqueueIn: (trx: Db, id: string) => Promise<void>
}

export const newModelId = () => randomBytes(16).toString('hex')

/**
 * Creates a model: decodes and checks every voice, writes the blobs under `models/<id>/`, then inserts the
 * row with its blob registry and its training job in one transaction (a node dying right after cannot leave
 * a model no node will train). If anything fails the written blobs are deleted; if the process dies in
 * between, recovery deletes blobs no row registers. So either both exist or neither.
 */
export async function createModel(deps: CreateDeps, accountId: string, input: CreateModelInput): Promise<string> {
  const cover = input.coverImage ? sniffImage(input.coverImage.bytes) : null
  const decoded = await decodeVoices(deps, input, input.coverImage && !cover ? [COVER_ISSUE] : [])
  const id = newModelId()
  const now = new Date().toISOString()
  const samples: StoredSample[] = []
  const audios: AudioQualityEntry[] = []
  const blobs: (BlobsTable & { bytes: Uint8Array })[] = []
  input.voices.forEach((voice, i) => {
    const audio = decoded[i]!
    const media = audioMedia(audio.format)
    const key = `models/${id}/voice-${i}.${media.ext}`
    const filename = voice.filename || `voice-${i}.${media.ext}`
    const text = input.texts[i] ?? ''
    const size = voice.bytes.length
    blobs.push({ key, model_id: id, filename, content_type: media.type, size, bytes: voice.bytes })
    samples.push({ key, filename, contentType: media.type, size: voice.bytes.length, text })
    audios.push({
      filename,
      duration_ms: Math.round(audio.durationSec * 1000),
      language: detectLanguage(text) || 'unknown',
      quality: { sample_rate: audio.sampleRate, channels: audio.channels, format: audio.format },
      quality_passed: false,
      quality_reason: '',
    })
  })
  let coverKey = ''
  if (input.coverImage && cover) {
    coverKey = `models/${id}/cover-${randomBytes(4).toString('hex')}.${cover.ext}`
    const bytes = input.coverImage.bytes
    const filename = input.coverImage.filename || `cover.${cover.ext}`
    blobs.push({ key: coverKey, model_id: id, filename, content_type: cover.type, size: bytes.length, bytes })
  }
  const record: ModelRecord = {
    id,
    accountId,
    authorNickname: '',
    type: input.type,
    title: input.title,
    description: input.description,
    coverKey,
    trainMode: input.trainMode,
    state: 'created',
    stateReason: '',
    visibility: input.visibility,
    tags: input.tags,
    languages: [...new Set(audios.map((a) => a.language).filter((l) => l !== 'unknown'))],
    titleLanguage: detectLanguage(input.title),
    samples,
    quality: { created_at: now, updated_at: now, audios },
    profile: null,
    builtinVoice: null,
    defaultText: '',
    enhanceAudioQuality: input.enhanceAudioQuality,
    likeCount: 0,
    markCount: 0,
    sharedCount: 0,
    taskCount: 0,
    score: 0,
    createdAt: now,
    updatedAt: now,
  }

  try {
    for (const blob of blobs) await deps.blobs.put(blob.key, blob.bytes)
    await deps.repo.insert(record, blobs.map(({ bytes: _bytes, ...row }) => row), (trx) => deps.enqueueIn(trx, id))
  } catch (err) {
    // Every planned key, not only the finished ones: a store may leave a partial write behind a throw.
    await Promise.allSettled(blobs.map((b) => deps.blobs.delete(b.key)))
    throw err
  }
  return id
}

/** Decodes every voice; all problems are reported together as one 422. */
async function decodeVoices(
  deps: CreateDeps,
  input: CreateModelInput,
  earlier: ValidationIssue[],
): Promise<DecodedAudio[]> {
  const issues: ValidationIssue[] = [...earlier]
  const out: DecodedAudio[] = []
  for (const [i, voice] of input.voices.entries()) {
    const loc = ['body', 'voices', String(i)]
    const name = voice.filename || `voices[${i}]`
    if (voice.bytes.length === 0) {
      const msg = `Voice sample '${name}' is empty; upload an audio file`
      issues.push({ loc, type: 'value_error', msg, in: 'body' })
      continue
    }
    try {
      // The decoder gets its own copy: it may detach the buffer it is given (transfer to wasm/worker) and views
      // it as 16/32-bit arrays, which needs an aligned offset. MessagePack bin values are views into the
      // request body at any offset, and the original bytes are still needed for the blob store.
      // (`new Uint8Array(x)` always copies; `Buffer#slice` would not.)
      const audio = await deps.decode(new Uint8Array(voice.bytes), { name, loc, maxSeconds: deps.maxSampleSeconds })
      const problem = durationProblem(audio, deps) ?? rateProblem(audio)
      if (problem) issues.push({ loc, type: 'value_error', msg: `Voice sample '${name}' ${problem}`, in: 'body' })
      out[i] = audio
    } catch (err) {
      if (!(err instanceof SpeechError) || err.issues.length === 0) throw err
      issues.push(...err.issues)
    }
  }
  if (issues.length > 0) throw new SpeechError('validation_failed', issues.map((i) => i.msg).join('; '), { issues })
  return out
}

function durationProblem(audio: DecodedAudio, limits: CreateDeps): string | null {
  const { minSampleSeconds: min, maxSampleSeconds: max } = limits
  if (audio.durationSec >= min && audio.durationSec <= max) return null
  return `is ${audio.durationSec.toFixed(2)} s long; voice samples must be between ${min} and ${max} seconds`
}

function rateProblem(audio: DecodedAudio): string | null {
  if (audio.sampleRate >= QUALITY_LIMITS.minSampleRate) return null
  return `has a sample rate of ${audio.sampleRate} Hz; voice samples need at least ${QUALITY_LIMITS.minSampleRate} Hz`
}

const COVER_ISSUE: ValidationIssue = {
  loc: ['body', 'cover_image'],
  type: 'value_error',
  msg: 'cover_image must be a PNG, JPEG, GIF or WebP image',
  in: 'body',
}

/** The cover's media type, or a 422 naming `cover_image`. */
export function coverMedia(bytes: Uint8Array): { type: string; ext: string } {
  const media = sniffImage(bytes)
  if (!media) throw new SpeechError('validation_failed', COVER_ISSUE.msg, { issues: [COVER_ISSUE] })
  return media
}
