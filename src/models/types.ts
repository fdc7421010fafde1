import type { AsrLoadConfig, TtsLoadConfig, VadLoadConfig } from '../engines/neural/protocol.js'

/** Model families Parla recognises by their published layouts (docs/models.md). */
export type ModelFamily = 'piper' | 'vits' | 'kokoro' | 'zipvoice' | 'whisper' | 'moonshine' | 'nemo-ctc' | 'streaming-transducer' | 'whisper-ggml' | 'silero-vad'

/** One model package found in `modelsDir`: a folder (or a single file) as its project publishes it. */
export interface ModelPackage {
  /** The folder or file name: what `parla models rm` takes. */
  readonly id: string
  readonly family: ModelFamily
  /** What it does: speaks, recognises, or finds speech in live audio (`vad`, used by live transcription). */
  readonly kind: 'tts' | 'asr' | 'vad'
  readonly path: string
  /** Lower-case language codes; empty when the model does not say. */
  readonly languages: readonly string[]
  /** Speaker names of a multi-speaker TTS model, in speaker-id order; one entry for single-speaker models. */
  readonly speakers: readonly string[]
  /** Per speaker (same order), its languages when they differ by speaker (a multi-language Kokoro model). */
  readonly speakerLanguages?: readonly (readonly string[])[]
  /** A TTS model's output rate, as its metadata or config declares it. */
  readonly sampleRate?: number
  /** Speaks several languages with one model, told the language per request (Kokoro metadata version ≥ 2). */
  readonly multiLanguage?: boolean
  /** Whether Parla can run it on this machine; otherwise `note` says why. */
  readonly runnable: boolean
  readonly note?: string
  /**
   * Runnable, but no model of this family (or layout) built by its project's own code was run by Parla's tests
   * (synthetic graphs imitating its interface only): why, shown by `parla models list` (docs/models.md).
   */
  readonly untested?: string
  /** Not runnable because its files are wrong (missing, damaged, not matching the model's metadata): `note` says how. */
  readonly broken?: boolean
  /** Clones from reference audio + transcript (ZipVoice). */
  readonly clones?: boolean
  /** Runtime configuration (files), resolved when the model is first used. */
  readonly prepare?: () => Promise<TtsLoadConfig>
  /** Runtime configuration of an ASR package (files). */
  readonly asr?: AsrLoadConfig
  /** Runtime configuration of a voice activity model. */
  readonly vad?: VadLoadConfig
}
