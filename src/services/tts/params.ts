import type { AudioFormat } from '../../audio/types.js'
import type { SamplingParams } from '../../engines/tts/types.js'
import type { Latency, TagDialect } from '../../text/types.js'

export interface ReferenceInput {
  readonly audio: Uint8Array
  readonly text: string
}

/** A TTS request with every default filled in and every client encoding resolved. */
export interface TtsParams {
  readonly text: string
  readonly dialect: TagDialect
  /** The `model` header as sent (trimmed, lower case; empty when absent): picks the default voice (`ttsRoutes`). */
  readonly model?: string
  /** Voice model ids per speaker index; empty means the default voice for the language. */
  readonly referenceIds: readonly string[]
  /** Inline references per speaker index (`references` as a flat list is speaker 0). */
  readonly references: readonly (readonly ReferenceInput[])[]
  readonly speed: number
  readonly volumeDb: number
  readonly normalizeLoudness: boolean
  readonly chunkLength: number
  readonly minChunkLength: number
  readonly latency: Latency
  readonly normalize: boolean
  readonly format: AudioFormat
  /** Requested output rate, or undefined for the format's default. */
  readonly sampleRate?: number
  /** Bits per second for mp3/opus; opus -1000 = automatic. */
  readonly bitrate?: number
  readonly sampling: SamplingParams
  /** Main language for text too short to detect (`TextPipelineOptions.languageHint`); live sessions set it. */
  readonly languageHint?: string
  /** The server's default language (setting `defaultLanguage`). */
  readonly defaultLanguage?: string
  /**
   * The caller already cut the text into units as they should be spoken (a live session's phrases, with its
   * own first-phrase rule): the service does not re-cut the first chunk when the engine is busy.
   */
  readonly presplit?: boolean
}

/**
 * Parameters for surfaces whose requests carry only text, voice and format (OpenAI, Wyoming): every other
 * field at the Fish request's default, so the same text sounds the same on every surface.
 */
export function plainTtsParams(text: string, format: AudioFormat, overrides: Partial<TtsParams> = {}): TtsParams {
  return {
    text,
    dialect: 's2-pro',
    referenceIds: [],
    references: [],
    speed: 1,
    volumeDb: 0,
    normalizeLoudness: true,
    chunkLength: 200,
    minChunkLength: 50,
    latency: 'balanced',
    normalize: true,
    format,
    sampling: {},
    ...overrides,
  }
}
