import { abortReason } from '../../../abort.js'
import { SpeechError } from '../../../errors.js'
import type { NeuralHost } from '../../neural/host.js'
import type { AsrRawResult } from '../../neural/protocol.js'
import type { AsrStream, RecognizedWord } from '../types.js'
import { toWords } from './words.js'

/** The engine's processes, each with the streaming model loaded (index.ts). */
export interface OnlineHosts {
  /** A process with the model loaded, held until `free` (waits for one behind other calls). */
  acquire(signal?: AbortSignal, deadline?: number): Promise<NeuralHost>
  /** Gives the process back, or replaces it when it ended. */
  free(host: NeuralHost): void
  /** What a call whose process ended under it answers. */
  died(host: NeuralHost): Promise<SpeechError>
}

const RATE = 16_000
const toFloat = (pcm: Int16Array | Float32Array) => (pcm instanceof Float32Array ? pcm : Float32Array.from(pcm, (v) => v / 32768))
/** The runtime's text so far as words (its pieces' `▁` are spaces in its text). */
const textWords = (raw: AsrRawResult) => raw.text.trim().split(/\s+/).filter(Boolean)

/**
 * A live utterance on a streaming model (sherpa-onnx's OnlineRecognizer in a neural host process): the process
 * is held from the first samples to `end()`, each feed answers the runtime's text so far, and `end()` its words
 * with the runtime's token times. An abort drops the utterance and frees the process at once.
 */
export async function openOnlineStream(modelKey: string, hosts: OnlineHosts, first: Int16Array | Float32Array, options: { readonly signal?: AbortSignal; readonly deadline?: number }): Promise<{ stream: AsrStream; words: readonly string[] }> {
  const { signal } = options
  const host = await hosts.acquire(signal, options.deadline)
  const id = host.newStreamId()
  let held = true
  let samples = 0
  const release = () => {
    if (!held) return
    held = false
    signal?.removeEventListener('abort', release)
    host.dropStream(id)
    hosts.free(host)
  }
  signal?.addEventListener('abort', release, { once: true })
  if (signal?.aborted) release()
  const feed = async (pcm: Int16Array | Float32Array, last: boolean): Promise<AsrRawResult> => {
    if (!held) throw signal?.aborted ? abortReason(signal) : new SpeechError('bad_request', '[neural] this live utterance has ended')
    samples += pcm.length
    try {
      return await host.feedStream(modelKey, id, toFloat(pcm), last, signal)
    } catch (err) {
      const ended = !host.alive
      release()
      throw ended ? await hosts.died(host) : err
    }
  }
  const stream: AsrStream = {
    feed: async (pcm) => textWords(await feed(pcm, false)),
    async end(): Promise<readonly RecognizedWord[]> {
      const raw = await feed(new Float32Array(0), true)
      release()
      return toWords(raw, samples / RATE)
    },
  }
  return { stream, words: textWords(await feed(first, false)) }
}

/** A whole recording through the streaming model (the batch routes, when it is the configured engine). */
export async function transcribeOnline(modelKey: string, hosts: OnlineHosts, samples: Float32Array, options: { readonly signal?: AbortSignal; readonly deadline?: number }): Promise<RecognizedWord[]> {
  const { stream } = await openOnlineStream(modelKey, hosts, samples, options)
  return [...await stream.end()]
}
