import type { CallOptions } from '../../audio/types.js'
import type { Logger } from '../../logger.js'
import type { PoolLoad } from './pool.js'

/**
 * A word as an engine spoke it. Times are seconds from the start of the audio of this `synthesize` call.
 * `charStart`/`charEnd` index the `text` the engine was given (end exclusive), so the text pipeline can map
 * the word back to what the user wrote.
 */
export interface EngineWord {
  readonly text: string
  readonly start: number
  readonly end: number
  readonly charStart: number
  readonly charEnd: number
}

/**
 * One piece of engine output: audio, and the words whose audio ends within it (possibly none). An engine
 * that times its words after the audio (alignment) sends them in a last chunk without samples.
 */
export interface SynthesisChunk {
  readonly samples: Float32Array
  readonly words: readonly EngineWord[]
  /**
   * Set on the chunk with the call's last audio, so the caller can start its next call; only chunks of words
   * without samples may follow it.
   */
  readonly final?: boolean
  /**
   * The engine keeps no reference to `samples` and never reads or changes them again, so the caller may level
   * them in place instead of copying them first (for an engine that hands over a whole sentence at once, that
   * copy stands between the runtime's audio and the first bytes sent).
   */
  readonly owned?: boolean
}

export interface TtsVoice {
  /** Engine-local id, e.g. `slt`, `en-us`. The voice model `_id` is `<engine>-<id>`. */
  readonly id: string
  readonly title: string
  /** BCP-47-ish codes, lower case: `en`, `en-us`, `zh`, `de`, … */
  readonly languages: readonly string[]
  readonly gender: 'female' | 'male' | 'unknown'
  readonly description: string
  /**
   * Set to `false` when this voice ignores `pitchSemitones` although `capabilities.pitch` is true (flite
   * `rms`), so the caller shifts pitch itself. Absent means `capabilities.pitch` applies.
   */
  readonly pitch?: boolean
  /**
   * `references`: this voice speaks only as a clone of `SynthesisRequest.references` (a ZipVoice model), while
   * the engine's other voices may not clone. Absent means `capabilities.cloning` applies.
   */
  readonly cloning?: 'references'
  /**
   * Why this voice cannot speak (its model package is broken: files missing or not matching, or the runtime
   * refused it). Requests to it answer 409 with this; no sample clip is made.
   */
  readonly unavailable?: string
  /**
   * The voice's model package is being loaded once to see whether the runtime takes it: requests wait for the
   * verdict (bounded); its sample clip is made once it is known good.
   */
  readonly checking?: boolean
}

export interface SamplingParams {
  readonly temperature?: number
  readonly topP?: number
  readonly repetitionPenalty?: number
  readonly maxNewTokens?: number
  readonly conditionOnPreviousChunks?: boolean
  readonly earlyStopThreshold?: number
}

export interface SynthesisRequest {
  /** Plain text to speak: already normalized, no tags. One or a few sentences. */
  readonly text: string
  /** An id from `voices()`. */
  readonly voice: string
  /** The language the text is in, as the text pipeline decided it (`en`, `zh`, …); engines with multi-language voices read it. */
  readonly language?: string
  /** Speaking-rate factor through the engine's own control (1 = normal, 2 = twice as fast). Only if `capabilities.rate`. */
  readonly rate?: number
  /** Pitch shift in semitones through the engine's own control. Only if `capabilities.pitch`. */
  readonly pitchSemitones?: number
  /** Passed through; engines that have no sampler ignore them (see `capabilities.sampling`). */
  readonly sampling?: SamplingParams
  /** Reference clips to clone from (`references: [{audio, text}]`), for engines with `capabilities.cloning`. */
  readonly references?: readonly ReferenceClip[]
}

/** One reference: the audio file's bytes as the client sent them, and its transcript. */
export interface ReferenceClip {
  readonly audio: Uint8Array
  readonly text: string
}

export interface TtsCapabilities {
  /** Languages the engine can speak, lower-case codes. */
  readonly languages: readonly string[]
  /** `exact`: the engine reports word times; `estimated`: derived from phone/syllable timing. */
  readonly wordTimings: 'exact' | 'estimated'
  /** Whether `rate` is honoured natively. */
  readonly rate: boolean
  /** Rates the native control reaches (inclusive); beyond them the caller time-stretches the rest. Absent: any. */
  readonly rateRange?: readonly [min: number, max: number]
  /** Whether `pitchSemitones` is honoured natively. */
  readonly pitch: boolean
  /** `incremental`: audio arrives in small pieces while synthesizing; `utterance`: one piece per call. */
  readonly streaming: 'incremental' | 'utterance'
  /** Names of SamplingParams fields the engine uses (empty for classic engines). */
  readonly sampling: readonly (keyof SamplingParams)[]
  /** `references`: the engine clones from `SynthesisRequest.references` itself (no DSP adaptation). */
  readonly cloning?: 'references'
}

/**
 * A speech synthesizer. `synthesize` yields audio as it is produced; it must stop work and release what it
 * holds when `signal` aborts or the consumer stops iterating (`return()` runs the generator's `finally`).
 * Engines throw `SpeechError('engine_failed')` when the engine itself breaks.
 */
export interface TtsEngine {
  /** Stable id: `festival`, `flite`, `espeak-ng`. */
  readonly id: string
  /** Sample rate of every chunk yielded (unless `sampleRateOf` says otherwise for a voice). */
  readonly sampleRate: number
  /**
   * The rate of the chunks yielded for `voice`, for engines whose voices come at their own rates (neural models:
   * 16, 22.05 or 24 kHz), so audio is resampled once, to what the request asks, and not first to a shared rate.
   */
  sampleRateOf?(voice: string): number
  readonly capabilities: TtsCapabilities
  voices(): readonly TtsVoice[]
  synthesize(request: SynthesisRequest, options?: CallOptions): AsyncIterable<SynthesisChunk>
  /** True while every process or worker is working, so a new call would wait (optional; absent: never). */
  saturated?(): boolean
  /** Its processes or workers: how many, busy, calls waiting, seconds held (metrics, health, admission cost). */
  load?(): PoolLoad
  /**
   * Looks again for voices that come from files (the operator's model packages), so ones added, removed or
   * replaced while the server runs are used without a restart. Absent: the engine's voices never change.
   */
  rescan?(): Promise<VoiceChanges>
  /** Calls `listener` when what `voices()` says about a voice changed by itself (a package's check ended). */
  onVoicesChanged?(listener: () => void): void
  close(): Promise<void>
}

/** Voice ids (`TtsVoice.id`) a rescan found new, gone, or replaced by different files. */
export interface VoiceChanges {
  readonly added: readonly string[]
  readonly removed: readonly string[]
  readonly changed: readonly string[]
}

export interface TtsEngineOptions {
  /** Processes or workers to run; absent: the engine's default. */
  readonly processes?: number
  /** Where the engine reports what callers do not see (a process that died and was replaced, …). */
  readonly logger?: Logger
}

/** Creates an engine; may start processes or compile wasm. */
export type TtsEngineFactory = (options: TtsEngineOptions) => Promise<TtsEngine>

/** The rate `engine` yields `voice`'s audio at. */
export const voiceSampleRate = (engine: TtsEngine, voice: string): number => engine.sampleRateOf?.(voice) ?? engine.sampleRate
