import sherpa from 'sherpa-onnx-node'
import type { AsrLoadConfig, AsrRawResult, FromHost, ToHost, TtsLoadConfig } from './protocol.js'
import { toTransfer } from './pcm-transfer.js'
import { createVadHandlers, type VadRuntime } from './host-vad.js'
import { dropOnline, feedOnline, loadOnline, type OnlineRuntime } from './host-online.js'

/**
 * The neural host process: loads models into sherpa-onnx and runs them with its async API (inference on
 * libuv's thread pool, not this process's event loop). Runs as a child process because sherpa-onnx ends the
 * whole process on some bad model files (it calls `exit`); Parla then sees the child die and reports it.
 * One synthesis at a time per process: parallelism comes from the number of processes (config).
 */
interface Tts {
  readonly sampleRate: number
  readonly numSpeakers: number
  generateAsync(request: Record<string, unknown>): Promise<{ samples: Float32Array; sampleRate: number }>
}
interface Recognizer {
  createStream(): { acceptWaveform(w: { sampleRate: number; samples: Float32Array }): void }
  decodeAsync(stream: unknown): Promise<AsrRawResult>
  setConfig(config: unknown): void
}
/** A loaded recognizer, the configuration it was made with, and the Whisper language it is set to now. */
interface LoadedRecognizer { readonly recognizer: Recognizer; readonly config: RecognizerConfig; language: string }
interface RecognizerConfig { readonly modelConfig: Record<string, unknown> & { readonly whisper?: Record<string, string> }; readonly featConfig: unknown }
interface Sherpa extends OnlineRuntime { OfflineTts: { createAsync(config: unknown): Promise<Tts> }; OfflineRecognizer: { createAsync(config: unknown): Promise<Recognizer> } }

const runtime = sherpa as unknown as Sherpa
const models = new Map<string, Tts>()
/** Per model, the voice's own length scale (a Piper config's `inference.length_scale`), applied through the speed. */
const lengthScales = new Map<string, number>()
const recognizers = new Map<string, LoadedRecognizer>()
const cancelled = new Set<number>()
const send = (m: FromHost) => process.send?.(m)
const vad = createVadHandlers(sherpa as unknown as VadRuntime, send)

async function load(key: string, config: TtsLoadConfig, threads: number): Promise<void> {
  try {
    const { ruleFsts, ...model } = config
    // The runtime replaces its configured length scale with 1/speed whenever the speed is not 1, so the
    // voice's own scale would be lost at any other speed: it loads with 1 and each call's speed carries it.
    const lengthScale = model.vits?.lengthScale ?? 1
    if (model.vits) model.vits = { ...model.vits, lengthScale: 1 }
    const tts = models.get(key) ?? await runtime.OfflineTts.createAsync({ model: { ...model, numThreads: threads, provider: 'cpu', debug: 0 }, maxNumSentences: 1, ...(ruleFsts && { ruleFsts }) })
    models.set(key, tts)
    lengthScales.set(key, lengthScale > 0 ? lengthScale : 1)
    send({ t: 'loaded', key, sampleRate: tts.sampleRate, speakers: tts.numSpeakers })
  } catch (err) {
    send({ t: 'load-failed', key, message: err instanceof Error ? err.message : String(err) })
  }
}

async function synth(m: Extract<ToHost, { t: 'synth' }>): Promise<void> {
  const tts = models.get(m.key)
  if (!tts) return void send({ t: 'failed', id: m.id, message: `model ${m.key} is not loaded` })
  let sentences = 0
  // Length = lengthScale / speed: the runtime uses 1/speed (or its configured 1 when this is exactly 1).
  const speed = m.speed / (lengthScales.get(m.key) ?? 1)
  try {
    const request: Record<string, unknown> = {
      text: m.text,
      sid: m.sid,
      speed,
      // One callback per sentence: the audio streams out sentence by sentence; returning 0 stops generation.
      onProgress: (info: { samples: Float32Array }) => {
        if (cancelled.has(m.id)) return 0
        sentences++
        // The runtime's thread waits for this to return. The samples are converted and serialized at once (the
        // runtime's buffer is only valid during the call); `send` writes them to the pipe later.
        send({ t: 'chunk', id: m.id, audio: toTransfer(info.samples) })
        return 1
      },
    }
    if (m.reference) {
      // With a generation config the runtime reads speed (and sid) from it, not from the request.
      request.generationConfig = { speed, sid: m.sid, referenceAudio: m.reference.samples, referenceSampleRate: m.reference.sampleRate, referenceText: m.reference.text }
    } else if (m.lang) {
      // A multi-language Kokoro model reads the language (an eSpeak NG voice name) per call from `extra`.
      request.generationConfig = { speed, sid: m.sid, extra: { lang: m.lang } }
    }
    await tts.generateAsync(request)
    send({ t: 'done', id: m.id, sentences, cancelled: cancelled.has(m.id) })
  } catch (err) {
    send({ t: 'failed', id: m.id, message: err instanceof Error ? err.message : String(err) })
  } finally {
    cancelled.delete(m.id)
  }
}

async function loadAsr(key: string, config: AsrLoadConfig, threads: number): Promise<void> {
  try {
    if (config.online) loadOnline(runtime, key, config, threads)
    else if (!recognizers.has(key)) {
      const full: RecognizerConfig = {
        modelConfig: { ...config.model, tokens: config.tokens, numThreads: threads, provider: 'cpu', debug: 0 },
        featConfig: { sampleRate: 16_000, featureDim: 80 },
      }
      recognizers.set(key, { recognizer: await runtime.OfflineRecognizer.createAsync(full), config: full, language: '' })
    }
    send({ t: 'loaded', key, sampleRate: 16_000, speakers: 0 })
  } catch (err) {
    send({ t: 'load-failed', key, message: err instanceof Error ? err.message : String(err) })
  }
}

async function transcribe(m: Extract<ToHost, { t: 'transcribe' }>): Promise<void> {
  const loaded = recognizers.get(m.key)
  if (!loaded) return void send({ t: 'failed', id: m.id, message: `model ${m.key} is not loaded` })
  const { recognizer, config } = loaded
  try {
    // Whisper reads the language from the recognizer's configuration, not per stream; this process decodes
    // one utterance at a time, so setting it before each decode that needs another is safe ('' detects).
    if (config.modelConfig.whisper && m.language !== undefined && m.language !== loaded.language) {
      recognizer.setConfig({ ...config, modelConfig: { ...config.modelConfig, whisper: { ...config.modelConfig.whisper, language: m.language } } })
      loaded.language = m.language
    }
    const stream = recognizer.createStream()
    stream.acceptWaveform({ sampleRate: m.sampleRate, samples: m.samples })
    const r = await recognizer.decodeAsync(stream)
    send({ t: 'transcribed', id: m.id, result: { text: r.text, tokens: r.tokens ?? [], timestamps: r.timestamps ?? [], ...(r.lang && { lang: r.lang }) } })
  } catch (err) {
    send({ t: 'failed', id: m.id, message: err instanceof Error ? err.message : String(err) })
  }
}

process.on('message', (m: ToHost) => {
  if (m.t === 'load') void load(m.key, m.config, m.threads)
  else if (m.t === 'asr-load') void loadAsr(m.key, m.config, m.threads)
  else if (m.t === 'transcribe') void transcribe(m)
  else if (m.t === 'synth') void synth(m)
  else if (m.t === 'cancel') cancelled.add(m.id)
  else if (m.t === 'vad-load') vad.load(m)
  else if (m.t === 'vad-open') vad.open(m)
  else if (m.t === 'vad-audio') vad.audio(m)
  else if (m.t === 'vad-close') vad.close(m)
  else if (m.t === 'stream-feed') feedOnline(m, send)
  else if (m.t === 'stream-drop') dropOnline(m.id)
})
// The parent went away: nothing left to serve.
process.on('disconnect', () => process.exit(0))
