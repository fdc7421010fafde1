import { availableParallelism } from 'node:os'
import { decodeAudio, inspectAudio } from '../../audio/decode.js'
import type { AsrEngine } from '../../engines/asr/types.js'
import { createPocketsphinxEngine } from '../../engines/asr/pocketsphinx/index.js'
import { invalidField, SpeechError } from '../../errors.js'
import { transcribe, type Transcript } from '../../asr/transcribe.js'
import { createConcurrencyGate } from './concurrency-gate.js'
import { LiveSession } from './live/session.js'
import type { TurnSettings } from './live/turn-detector.js'
import type { LiveLog, VoiceDetectorSource } from './live/voice-detector.js'

/** What a live transcription surface asks for (see `LiveSession`). */
export interface LiveRequest {
  /** Rate of the client's 16-bit mono PCM. */
  readonly inputRate: number
  readonly language?: string
  /** Server-side turn detection, or null for turns ended by the client's commit. */
  readonly turns: TurnSettings | null
  readonly idleMs?: number
  readonly maxBacklogSec?: number
  /** The request's logger, for the session's start line; default the service's. */
  readonly log?: LiveLog
  /**
   * A place in the recognition line the caller already holds for the whole session (see `reserve`): its
   * turns wait for it instead of taking places of their own.
   */
  readonly place?: Promise<unknown>
}

/** Spec limits for one `/v1/asr` request. */
export const MIN_AUDIO_SEC = 1
export const MAX_AUDIO_SEC = 60 * 60

export interface AsrRequest {
  readonly audio: Uint8Array
  readonly filename: string
  readonly language?: string
  /** Default true, as the Fish server documents; the SDKs send false to get segments. */
  readonly ignoreTimestamps?: boolean
  /** Also return each word with its times (the OpenAI surface's `timestamp_granularities[]=word`). */
  readonly words?: boolean
}

export interface AsrResult extends Transcript {
  /** The language the audio was transcribed as. */
  readonly language: string
}

export interface AsrServiceOptions {
  /** Decoder workers; 0 means one per CPU core. */
  readonly workers: number
  /**
   * Requests decoded and transcribed at once; the rest wait in line (first come, first served). Each one in
   * progress holds its decoded audio (about 38 MB per 10 minutes), so this bounds memory. Default: the number
   * of decoder workers (one per core), enough to keep every decoder busy; see docs/decisions.md ("Speech to text memory").
   */
  readonly concurrency?: number
  /** Requests that may wait in that line; beyond it they get 503 `engine_busy` at once. Default: unbounded. */
  readonly queueLength?: number
  /** Longest wait in the line before the 503, ms. Default: no deadline. */
  readonly waitMs?: number
  /** Replaces pocketsphinx (tests). */
  readonly engine?: () => AsrEngine
  /** Live sessions' voice activity detectors, in order of preference (default: libfvad only). */
  readonly voiceDetectors?: readonly VoiceDetectorSource[]
  readonly logger?: LiveLog
}

/** Speech to text for whole files. The engine starts on first use (its decoders load the model once each). */
export function createAsrService(options: AsrServiceOptions) {
  const rejected = new Set<() => void>()
  const gate = createConcurrencyGate(options.concurrency ?? (options.workers > 0 ? options.workers : Math.max(1, availableParallelism())), {
    what: 'speech recognition',
    ...(options.queueLength !== undefined && { queueLength: options.queueLength }),
    ...(options.waitMs !== undefined && { waitMs: options.waitMs }),
    onReject: () => {
      for (const listener of rejected) listener()
    },
  })
  let engine: AsrEngine | undefined
  const getEngine = () =>
    (engine ??= options.engine?.() ?? createPocketsphinxEngine(options.workers > 0 ? { workers: options.workers } : {}))

  const languageFor = (requested: string | undefined, asr: AsrEngine): string => {
    const supported = asr.capabilities.languages
    if (requested === undefined || requested === 'auto') return asr.capabilities.detectsLanguage ? 'auto' : supported[0]!
    const code = requested.toLowerCase().replace('_', '-')
    const match = supported.find((l) => l === code || l === code.split('-')[0])
    if (!match) {
      const msg = `language '${requested}' is not supported; supported: ${supported.join(', ')} (or omit it to detect)`
      throw invalidField(['body', 'language'], msg, 'enum')
    }
    return match
  }

  return {
    get engine() {
      return getEngine()
    },
    /** Starts the engine and waits until its decoders have loaded, so the first request is not slow. */
    async warm(): Promise<void> {
      await getEngine().ready?.()
    },
    /**
     * Transcribes one upload. Cheap checks (language, format, a WAV's length) answer at once; decoding and
     * recognition wait for a place in the gate, and a request aborted while waiting leaves the line. With
     * `placeHeld` the caller holds a place from `reserve` and the work runs in it.
     */
    async transcribe(request: AsrRequest, signal?: AbortSignal, placeHeld = false): Promise<AsrResult> {
      const asr = getEngine()
      // Pocketsphinx has one model per language and no language identification, so "detected" means the
      // only installed language; an engine that detects (Whisper) says what it heard. The response says which.
      const language = languageFor(request.language, asr)
      const decodeOptions = {
        loc: ['body', 'audio'],
        maxSeconds: MAX_AUDIO_SEC,
        targetRate: asr.capabilities.sampleRate,
        ...(request.filename && { name: request.filename }),
        ...(signal && { signal }),
      }
      unusable(() => inspectAudio(request.audio, decodeOptions))
      const work = async () => {
        // The upload is not needed once decoded: handing it over frees it while the audio is transcribed.
        // 16-bit: half the memory of floats for what waits to be recognised (see MonoSamples).
        const decoded = await unusable(() => decodeAudio(request.audio, { ...decodeOptions, transferBytes: true, sampleType: 'int16' }))
        if (decoded.durationSec < MIN_AUDIO_SEC) {
          const msg =
            `audio is ${decoded.durationSec.toFixed(2)} s long; send at least ${MIN_AUDIO_SEC} second of audio`
          throw new SpeechError('unusable_input', msg, { field: decodeOptions.loc, type: 'too_short' })
        }
        return transcribe(asr, { samples: decoded.samples, sampleRate: decoded.sampleRate }, {
          language,
          timestamps: !(request.ignoreTimestamps ?? true),
          ...(request.words && { words: true }),
          ...(signal && { signal }),
        })
      }
      // A caller holding a place from `reserve` runs in it: it does not queue again behind later requests.
      const result = placeHeld ? await work() : await gate.run(work, signal)
      return { ...result, language: result.language ?? (language === 'auto' ? asr.capabilities.languages[0]! : language) }
    },
    /**
     * A live transcription session. Each turn takes a place in the same gate as whole-file requests while it
     * holds a decoder, so live and batch work share the node's limit. Throws on an unsupported language or rate.
     */
    openLive(request: LiveRequest): LiveSession {
      const asr = getEngine()
      const language = languageFor(request.language, asr)
      const log = request.log ?? options.logger
      return new LiveSession({
        engine: asr,
        hold: (signal) => (request.place ? request.place.then(() => () => {}) : gate.hold(signal)),
        inputRate: request.inputRate,
        language,
        turns: request.turns,
        ...(request.idleMs !== undefined && { idleMs: request.idleMs }),
        ...(request.maxBacklogSec !== undefined && { maxBacklogSec: request.maxBacklogSec }),
        ...(options.voiceDetectors && { detectors: options.voiceDetectors }),
        ...(log && { log }),
      })
    },
    /**
     * Takes a place in the recognition line for work made of several steps (a Wyoming utterance: its live
     * preview from the first audio, then its whole-utterance transcript, `transcribe` with `placeHeld`), so it
     * is admitted or turned away (503 `engine_busy`) at its start. Resolves with the function that gives it back.
     */
    reserve(signal?: AbortSignal): Promise<() => void> {
      return gate.hold(signal)
    },
    /** Calls `listener` each time a request is turned away because the line is full or its wait ran out. */
    onRejected(listener: () => void): void {
      rejected.add(listener)
    },
    /** Requests transcribing now and waiting in line (for tests and monitoring). */
    get load() {
      return { active: gate.active, waiting: gate.waiting, limit: gate.limit }
    },
    async close() {
      await engine?.close()
    },
  }
}

export type AsrService = ReturnType<typeof createAsrService>

/** The request's only audio cannot be used: `unusable_input`, on the decoder's field and with its message. */
function unusable<T>(run: () => T): T {
  const wrap = (err: unknown) => {
    if (err instanceof SpeechError && err.code === 'validation_failed') throw new SpeechError('unusable_input', err.issues[0]?.msg ?? err.message, { issues: err.issues, cause: err })
    throw err
  }
  try {
    const out = run()
    return (out instanceof Promise ? out.catch(wrap) : out) as T
  } catch (err) {
    return wrap(err)
  }
}
