/** Worker thread: one native decoder, created once, decoding one utterance per message. */
import { parentPort, workerData } from 'node:worker_threads'
import { PocketsphinxDecoder } from './decoder.js'
import type { StreamMessage, WorkerReply, WorkerRequest, WorkerSetup } from './protocol.js'

const port = parentPort
if (!port) throw new Error('[pocketsphinx] worker.ts must run as a worker thread')
const setup = workerData as WorkerSetup
const cancel = new Int32Array(setup.cancel)
const send = (reply: WorkerReply) => port.postMessage(reply)

let decoder: PocketsphinxDecoder | undefined
try {
  decoder = new PocketsphinxDecoder(setup.args)
  send({ type: 'ready' })
} catch (err) {
  send({ type: 'init-failed', message: err instanceof Error ? err.message : String(err) })
}

port.on('message', (job: WorkerRequest) => {
  if (job.type === 'close') {
    // Freeing here, not by terminate(), returns the model's ~100 MB of native memory.
    decoder?.free()
    decoder = undefined
    port.close()
    return
  }
  if (!decoder) return
  if (job.type !== 'job') return stream(decoder, job)
  try {
    const stop = () => Atomics.load(cancel, 0) === job.id
    const result = job.words
      ? decoder.align(job.pcm, job.words, setup.blockSamples, stop)
      : decoder.decode(job.pcm, setup.blockSamples, stop)
    send({ type: 'done', id: job.id, words: result.words, stopped: result.stopped })
  } catch (err) {
    send({ type: 'failed', id: job.id, message: err instanceof Error ? err.message : String(err) })
  }
})

/** One step of a live utterance; a failure ends the utterance so the decoder is ready for the next one. */
function stream(d: PocketsphinxDecoder, message: StreamMessage): void {
  const { id } = message
  try {
    if (message.type === 'stream-start') {
      d.startStream(message.pcm, message.channel)
      send({ type: 'partial', id, words: d.feed(message.pcm, setup.blockSamples) })
    } else if (message.type === 'stream-feed') {
      send({ type: 'partial', id, words: d.feed(message.pcm, setup.blockSamples) })
    } else if (message.type === 'stream-so-far') {
      const { spec } = message
      const result = d.decodeSoFar(setup.blockSamples, () => [spec, id].includes(Atomics.load(cancel, 0)))
      send({ type: 'so-far', id, words: result.words, stopped: result.stopped })
    } else if (message.type === 'stream-end') {
      const result = d.endStream(setup.blockSamples, () => Atomics.load(cancel, 0) === id)
      send({ type: 'done', id, words: result.words, stopped: result.stopped })
    } else {
      d.abandonStream()
      send({ type: 'done', id, words: [], stopped: true })
    }
  } catch (err) {
    d.abandonStream()
    send({ type: 'failed', id, message: err instanceof Error ? err.message : String(err) })
  }
}
