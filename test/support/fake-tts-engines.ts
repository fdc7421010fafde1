/**
 * Fake TTS engines for plumbing tests (routes, streaming, errors, shutdown), where a real engine would only
 * add time and noise. Each speaks every word as a 0.2 s tone followed by 0.05 s of silence (0.3 s more after
 * punctuation), so word timings are exact and known; it runs the engine conformance suite like a real one.
 * Never used where what is tested is the speech itself.
 */
import { SpeechError } from '../../src/errors.js'
import type { TtsEngineRegistry } from '../../src/engines/tts/registry.js'
import type { EngineWord, SynthesisChunk, TtsEngine } from '../../src/engines/tts/types.js'

export const TONE_RATE = 16000
export const WORD_SEC = 0.2
export const GAP_SEC = 0.05
/** Silence after a word followed by punctuation. */
export const PAUSE_SEC = 0.3
const TONE_HZ = 200

export interface FakeEngineOptions {
  /** Throws `engine_failed` before yielding anything. */
  readonly failBefore?: boolean
  /** Throws `engine_failed` after this many chunks (one chunk per word). */
  readonly failAfter?: number
  /** Waits this long before each chunk (a slow engine), honouring the abort signal. */
  readonly delayMs?: number
}

/** What a fake engine saw, for tests that check an effect (a cancelled call stopped, …). */
export interface FakeEngineLog {
  /** Calls started. */
  calls: number
  /** Calls under way now. */
  active: number
  /** Calls that ended because the signal aborted or the consumer stopped reading. */
  stopped: number
  /** Chunks yielded, over all calls. */
  chunks: number
}

export interface FakeEngine extends TtsEngine {
  readonly log: FakeEngineLog
}

/** One engine with one English voice `a` (voice model `<id>-a`). */
export function createFakeEngine(id: string, options: FakeEngineOptions = {}): FakeEngine {
  const log: FakeEngineLog = { calls: 0, active: 0, stopped: 0, chunks: 0 }
  return {
    id,
    log,
    sampleRate: TONE_RATE,
    capabilities: { languages: ['en'], wordTimings: 'exact', rate: true, pitch: true, streaming: 'incremental', sampling: [] },
    voices: () => [{ id: 'a', title: `${id} A`, languages: ['en'], gender: 'female', description: 'a test tone' }],
    async *synthesize(request, callOptions = {}) {
      const signal = callOptions.signal
      if (request.voice !== 'a') throw new SpeechError('bad_request', `[${id}] unknown voice "${request.voice}"`)
      log.calls++
      log.active++
      let finished = false
      let failed = false
      try {
        if (options.failBefore) {
          failed = true
          throw new SpeechError('engine_failed', `[${id}] failed before its first audio (test)`)
        }
        const words = [...request.text.matchAll(/[\p{L}\p{N}']+/gu)]
        const rate = request.rate ?? 1
        const tone = toneSamples(TONE_HZ * 2 ** ((request.pitchSemitones ?? 0) / 12), WORD_SEC / rate)
        let at = 0
        for (const [n, m] of words.entries()) {
          if (options.failAfter !== undefined && n >= options.failAfter) {
            failed = true
            throw new SpeechError('engine_failed', `[${id}] failed after ${n} chunks (test)`)
          }
          if (options.delayMs) await sleep(options.delayMs, signal)
          signal?.throwIfAborted()
          // Punctuation before the next word makes a pause, as a real engine would.
          const next = words[n + 1]?.index ?? request.text.length
          const pause = /[.,;:!?]/.test(request.text.slice(m.index + m[0].length, next)) ? PAUSE_SEC : 0
          // No silence after the last word: real engines trim their output.
          const last = n === words.length - 1
          const length = last ? tone.length : Math.round(((WORD_SEC + GAP_SEC + pause) / rate) * TONE_RATE)
          const w: EngineWord = { text: m[0], start: at / TONE_RATE, end: (at + tone.length) / TONE_RATE, charStart: m.index, charEnd: m.index + m[0].length }
          at += length
          log.chunks++
          yield { samples: resize(tone, length), words: [w], final: last } satisfies SynthesisChunk
        }
        finished = true
      } finally {
        log.active--
        if (!finished && !failed) log.stopped++
      }
    },
    close: async () => {},
  }
}

/** A registry of fake engines, for `DepsOverrides.ttsEngines`. */
export function fakeEngineRegistry(engines: readonly FakeEngine[]): TtsEngineRegistry {
  return Object.fromEntries(engines.map((e) => [e.id, { load: async () => async () => e }]))
}

function toneSamples(hz: number, seconds: number): Float32Array {
  const out = new Float32Array(Math.round(seconds * TONE_RATE))
  for (let i = 0; i < out.length; i++) {
    // Linear ramps at the edges, so the tone starts and ends at zero like trimmed speech.
    const edge = Math.min(1, i / 160, (out.length - 1 - i) / 160)
    out[i] = 0.3 * edge * Math.sin((2 * Math.PI * hz * i) / TONE_RATE)
  }
  return out
}

/** `samples` followed by silence up to `length`. */
function resize(samples: Float32Array, length: number): Float32Array {
  const out = new Float32Array(length)
  out.set(samples.subarray(0, Math.min(length, samples.length)))
  return out
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    signal?.throwIfAborted()
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal!.reason)
    }
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}
