import type { AsrLoadConfig, AsrRawResult, FromHost, ToHost } from './protocol.js'

/**
 * The neural host's streaming (online) recognizers: sherpa-onnx's `OnlineRecognizer` for models such as
 * streaming Zipformer transducers. A live utterance is one runtime stream, opened by its first feed; each feed
 * decodes every chunk the audio so far completes and answers the text so far. The runtime's online API is
 * synchronous, which is fine here: a host process serves one call at a time (its pool hands it to one caller),
 * and a feed is at most a few hundred milliseconds of audio, so the process answers the next message soon.
 */
interface OnlineStream {
  acceptWaveform(w: { sampleRate: number; samples: Float32Array }): void
  inputFinished(): void
}
interface OnlineRecognizer {
  createStream(): OnlineStream
  isReady(stream: OnlineStream): boolean
  decode(stream: OnlineStream): void
  getResult(stream: OnlineStream): AsrRawResult
}
export interface OnlineRuntime { OnlineRecognizer: new (config: unknown) => OnlineRecognizer }

const RATE = 16_000
/**
 * Silence fed after an utterance's last samples (sherpa-onnx's own streaming examples pad 0.4 s): the encoder
 * decodes whole chunks, each needing frames to its right, so without it the last words are never decoded.
 */
export const TAIL_PADDING_SEC = 0.4

const recognizers = new Map<string, OnlineRecognizer>()
/** Live utterances by id; each is forgotten at its last feed, when dropped, or when it fails. */
const streams = new Map<number, { readonly recognizer: OnlineRecognizer; readonly stream: OnlineStream }>()

/** Loads a streaming model once per process (greedy search, as sherpa-onnx's examples run transducers). */
export function loadOnline(runtime: OnlineRuntime, key: string, config: AsrLoadConfig, threads: number): void {
  if (recognizers.has(key)) return
  recognizers.set(key, new runtime.OnlineRecognizer({
    featConfig: { sampleRate: RATE, featureDim: 80 },
    modelConfig: { ...config.model, tokens: config.tokens, numThreads: threads, provider: 'cpu', debug: 0 },
    decodingMethod: 'greedy_search',
    enableEndpoint: 0,
  }))
}

export function feedOnline(m: Extract<ToHost, { t: 'stream-feed' }>, send: (m: FromHost) => void): void {
  let live = streams.get(m.id)
  try {
    if (!live) {
      const recognizer = recognizers.get(m.key)
      if (!recognizer) return void send({ t: 'failed', id: m.id, message: `model ${m.key} is not loaded` })
      live = { recognizer, stream: recognizer.createStream() }
      streams.set(m.id, live)
    }
    const { recognizer, stream } = live
    if (m.samples.length > 0) stream.acceptWaveform({ sampleRate: RATE, samples: m.samples })
    if (m.last) {
      stream.acceptWaveform({ sampleRate: RATE, samples: new Float32Array(Math.round(RATE * TAIL_PADDING_SEC)) })
      stream.inputFinished()
    }
    while (recognizer.isReady(stream)) recognizer.decode(stream)
    const r = recognizer.getResult(stream)
    if (m.last) streams.delete(m.id)
    send({ t: 'stream-result', id: m.id, result: { text: r.text, tokens: r.tokens ?? [], timestamps: r.timestamps ?? [] } })
  } catch (err) {
    streams.delete(m.id)
    send({ t: 'failed', id: m.id, message: err instanceof Error ? err.message : String(err) })
  }
}

export function dropOnline(id: number): void {
  streams.delete(id)
}
