import type { FromHost, ToHost, VadLoadConfig } from './protocol.js'

/**
 * Silero voice activity streams inside the neural host process (sherpa-onnx's `Vad`). Parla's turn detector
 * does the smoothing (how much speech starts a turn, how much silence ends it), so each stream runs the
 * runtime's detector with its shortest holds: a window's flag is the model's verdict, with the runtime's
 * hysteresis (a window stays speech down to 0.15 below the threshold once speech began).
 */
interface RuntimeVad {
  acceptWaveform(samples: Float32Array): void
  isDetected(): boolean
  isEmpty(): boolean
  clear(): void
  flush(): void
}
export interface VadRuntime { Vad: new (config: unknown, bufferSizeInSeconds: number) => RuntimeVad }

/** Silero's window at 16 kHz (its v5 graph takes 512 samples a call). */
const WINDOW = 512
/** The runtime's shortest hold: it refuses 0 (`Validate`), and 1 ms is under one window. */
const HOLD_SEC = 0.001
/**
 * Speech the runtime keeps for its own segments until speech ends; nothing here reads them, so they are
 * dropped after this much continuous speech (`flush` keeps the model's state).
 */
const FLUSH_WINDOWS = Math.round((20 * 16_000) / WINDOW)

interface Stream { readonly vad: RuntimeVad; pending: Float32Array; speechWindows: number }

export function createVadHandlers(runtime: VadRuntime, send: (m: FromHost) => void) {
  const models = new Map<string, VadLoadConfig>()
  const streams = new Map<number, Stream>()
  const make = (config: VadLoadConfig, threshold: number) => new runtime.Vad({
    sileroVad: {
      model: config.model, threshold: Math.min(0.99, Math.max(0.01, threshold)),
      minSilenceDuration: HOLD_SEC, minSpeechDuration: HOLD_SEC, windowSize: WINDOW,
      // Past this much speech the runtime changes its threshold; `FLUSH_WINDOWS` keeps speech below it.
      maxSpeechDuration: 60,
    },
    sampleRate: 16_000, numThreads: 1, provider: 'cpu', debug: 0,
  }, 30)

  return {
    load(m: Extract<ToHost, { t: 'vad-load' }>): void {
      try {
        // Made once to see that the runtime takes the file; streams make their own (each has its state).
        const vad = make(m.config, 0.5)
        vad.acceptWaveform(new Float32Array(WINDOW))
        models.set(m.key, m.config)
        send({ t: 'loaded', key: m.key, sampleRate: 16_000, speakers: 0 })
      } catch (err) {
        send({ t: 'load-failed', key: m.key, message: err instanceof Error ? err.message : String(err) })
      }
    },
    open(m: Extract<ToHost, { t: 'vad-open' }>): void {
      const config = models.get(m.key)
      // An unknown model is reported on the stream's first audio.
      if (config) streams.set(m.stream, { vad: make(config, m.threshold), pending: new Float32Array(0), speechWindows: 0 })
    },
    audio(m: Extract<ToHost, { t: 'vad-audio' }>): void {
      const s = streams.get(m.stream)
      if (!s) return void send({ t: 'failed', id: m.id, message: `no VAD stream ${m.stream} (its model is not loaded)` })
      try {
        const samples = new Float32Array(s.pending.length + m.samples.length)
        samples.set(s.pending)
        samples.set(m.samples, s.pending.length)
        const flags: boolean[] = []
        let at = 0
        for (; at + WINDOW <= samples.length; at += WINDOW) {
          s.vad.acceptWaveform(samples.subarray(at, at + WINDOW))
          const speech = s.vad.isDetected()
          flags.push(speech)
          s.speechWindows = speech ? s.speechWindows + 1 : 0
          if (s.speechWindows >= FLUSH_WINDOWS) {
            s.vad.flush()
            s.speechWindows = 0
          }
          if (!s.vad.isEmpty()) s.vad.clear()
        }
        s.pending = samples.slice(at)
        send({ t: 'vad-flags', id: m.id, flags })
      } catch (err) {
        send({ t: 'failed', id: m.id, message: err instanceof Error ? err.message : String(err) })
      }
    },
    close(m: Extract<ToHost, { t: 'vad-close' }>): void {
      streams.delete(m.stream)
    },
  }
}
