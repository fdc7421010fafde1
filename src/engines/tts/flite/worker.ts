import { parentPort, workerData } from 'node:worker_threads'
import { FliteInstance } from './flite-instance.js'
import type { FliteJob, FliteReply } from './protocol.js'
import { synthesizePiece } from './synth-piece.js'
import type { ByteRange } from './wasm-layout.js'

const { module, readOnly } = workerData as { module: WebAssembly.Module; readOnly?: ByteRange }
const flite = new FliteInstance(module, readOnly)
const port = parentPort!

port.on('message', (job: FliteJob) => {
  let reply: FliteReply
  try {
    reply = { type: 'result', id: job.id, ...synthesizePiece(flite, job) }
  } catch (err) {
    reply = { type: 'error', id: job.id, message: err instanceof Error ? err.message : String(err) }
  }
  port.postMessage(reply, reply.type === 'result' ? [reply.wav.buffer as ArrayBuffer] : [])
})

// The first runs are slow while V8 optimizes the wasm; pay that before taking requests.
flite.run(['-voice', 'slt', '-t', ' Ready. ', '-o', 'none'])
port.postMessage({ type: 'ready' } satisfies FliteReply)
