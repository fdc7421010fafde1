import type { CallOptions, MonoSamples } from '../../audio/types.js'

/** A recognised word; times in seconds from the start of the audio given to `transcribe`. */
export interface RecognizedWord {
  readonly word: string
  readonly start: number
  readonly end: number
  /** 0..1 */
  readonly confidence: number
}

export interface AsrCapabilities {
  /** Lower-case language codes the engine recognises, e.g. `['en']`. */
  readonly languages: readonly string[]
  /** Sample rate `transcribe` expects. */
  readonly sampleRate: number
  /** Longest utterance the engine times correctly, in seconds; callers split longer audio at pauses. */
  readonly maxUtteranceSeconds: number
  /** How many `transcribe` calls run truly in parallel. */
  readonly parallelism: number
  /**
   * The engine identifies the spoken language itself: `transcribe` takes `auto` and its result says what it
   * heard (`Recognition.language`). Engines without it are given one of `languages`.
   */
  readonly detectsLanguage?: boolean
}

/**
 * What `transcribe` recognised: the words; from engines that write finished text (casing, punctuation, their own
 * spacing, e.g. Whisper) that text, used as it is rather than rebuilt from the words and tidied as for a word
 * recogniser like pocketsphinx; and from engines that `detectsLanguage`, the language heard.
 */
export type Recognition = readonly RecognizedWord[] & { readonly text?: string; readonly language?: string }

/** Where known words are spoken in audio (forced alignment). */
export interface WordAligner {
  /**
   * The times of `words` (lower-case dictionary words, in order) in `samples` (mono at `sampleRate`), one
   * per word, in seconds. Rejects when they cannot be aligned (a word the aligner does not know, audio that
   * does not say them) and with an AbortError on abort.
   */
  align(samples: Float32Array, sampleRate: number, words: readonly string[], signal?: AbortSignal): Promise<readonly { start: number; end: number }[]>
  close(): Promise<void>
}

export interface LiveCallOptions extends CallOptions {
  readonly language: string
  /**
   * Audio heard earlier on the same channel (the session's previous turn), 16 kHz: an engine that normalises
   * the channel may measure it there rather than on `first` alone.
   */
  readonly channel?: Int16Array
}

/** A live utterance decoded as its audio arrives (`AsrEngine.openStream`). */
export interface AsrStream {
  /** Decodes more 16-bit samples at `capabilities.sampleRate` (transferred); resolves with the words so far. */
  feed(samples: Int16Array): Promise<readonly string[]>
  /**
   * Ends the utterance: its words, timed in seconds from its first sample. An engine may decode the whole
   * utterance again here for a better final (pocketsphinx does once it heard more than its first audio), so this
   * can take as long as `transcribe` of that audio.
   */
  end(): Promise<readonly RecognizedWord[]>
  /**
   * Optional: the words `end()` would give if no more audio came, without ending the utterance (a speculative
   * final, started when the speaker pauses). `end()` with nothing fed since a completed call answers the same
   * words without decoding again; `feed` may follow (the speaker went on). Aborting `signal` stops this decode
   * only (it rejects with an AbortError; the utterance goes on). One at a time: the engine decodes in order.
   */
  decodeSoFar?(signal: AbortSignal): Promise<readonly RecognizedWord[]>
}

/**
 * A speech recognizer for one utterance (mono samples at `capabilities.sampleRate`). Calls may overlap; the
 * engine queues beyond `parallelism`. An aborted signal rejects with an AbortError and frees the worker.
 */
export interface AsrEngine {
  readonly id: string
  readonly capabilities: AsrCapabilities
  /** `options.language` is one of `capabilities.languages`, or `auto` for an engine that `detectsLanguage`. */
  transcribe(samples: MonoSamples, options: CallOptions & { readonly language: string }): Promise<Recognition>
  /**
   * Optional: engines that decode incrementally start a live utterance with its first samples (transferred).
   * Resolves once a decoder has taken it (it may wait behind `transcribe` calls), with the words of `first`.
   * The decoder is held until `end()`; aborting `options.signal` drops the utterance and frees it.
   */
  openStream?(first: Int16Array, options: LiveCallOptions): Promise<{ stream: AsrStream; words: readonly string[] }>
  /**
   * Optional: loads what the first request would wait for (decoders, a model in a runtime process), so that the
   * server can do it at start; resolves when done. Requests work without it, only slower at first.
   */
  ready?(): Promise<void>
  close(): Promise<void>
}
