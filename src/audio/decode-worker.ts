import { createRequire } from 'node:module'
import { pathToFileURL } from 'node:url'
import { Worker } from 'node:worker_threads'

/**
 * Decoding runs in worker threads: a 10-minute upload no longer blocks the event loop, a decoder stuck in
 * a loop on hostile bytes is terminated at the deadline, and a runaway allocation hits the worker's heap
 * limit instead of the server's. (V8 can still abort the whole process on a single absurd allocation, so
 * inputs are sanity-checked before they get here.) Decoder chatter on stdout/stderr is discarded.
 */
export interface RawAudio {
  readonly channelData: readonly Float32Array[]
  readonly sampleRate: number
}

const AUDIO_DECODE_URL = pathToFileURL(createRequire(import.meta.url).resolve('audio-decode')).href

const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads')
// Decoders print warnings on hostile input; discard them here (stdio pipes would keep the process alive).
for (const name of ['log', 'info', 'warn', 'error', 'debug']) console[name] = () => {}
const loading = import(${JSON.stringify(AUDIO_DECODE_URL)})
parentPort.on('message', async ({ id, format, bytes }) => {
  try {
    const decode = (await loading).default
    const dec = await decode[format]()
    const parts = [await dec(bytes), await dec()].filter((p) => p.channelData.length && p.channelData[0].length)
    const channels = Math.max(0, ...parts.map((p) => p.channelData.length))
    const channelData = Array.from({ length: channels }, (_, c) => {
      const out = new Float32Array(parts.reduce((n, p) => n + p.channelData[0].length, 0))
      let offset = 0
      for (const p of parts) {
        out.set(p.channelData[c] ?? p.channelData[0], offset)
        offset += p.channelData[0].length
      }
      return out
    })
    const sampleRate = parts[0] ? parts[0].sampleRate : 0
    parentPort.postMessage({ id, channelData, sampleRate }, channelData.map((c) => c.buffer))
  } catch (err) {
    parentPort.postMessage({ id, error: String((err && err.message) || err) })
  }
})
`

const POOL_SIZE = 2
const IDLE_MS = 60_000
const HEAP_LIMIT_MB = 1024

interface Job {
  readonly id: number
  readonly format: string
  readonly bytes: Uint8Array
  readonly timeoutMs: number
  readonly resolve: (audio: RawAudio) => void
  readonly reject: (err: Error) => void
}

interface WorkerReply {
  readonly id: number
  readonly error?: string
  readonly channelData?: Float32Array[]
  readonly sampleRate?: number
}

interface Slot {
  worker: Worker
  job?: Job
  timer?: NodeJS.Timeout
  idle?: NodeJS.Timeout
}

const slots: Slot[] = []
const queue: Job[] = []
let nextId = 1

function startSlot(): Slot {
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    resourceLimits: { maxOldGenerationSizeMb: HEAP_LIMIT_MB },
  })
  const slot: Slot = { worker }
  worker.on('message', (msg: WorkerReply) => {
    const job = slot.job
    if (!job || job.id !== msg.id) return
    finish(slot)
    if (msg.error !== undefined) job.reject(new Error(msg.error))
    else job.resolve({ channelData: msg.channelData ?? [], sampleRate: msg.sampleRate ?? 0 })
  })
  const died = (reason: string): void => {
    const job = slot.job
    retire(slot)
    job?.reject(new Error(reason))
  }
  worker.on('error', (err) => died(`decoder crashed: ${err.message}`))
  worker.on('exit', (code) => died(`decoder exited (${code})`))
  // After the listeners: adding a 'message' listener refs the worker's port again.
  worker.unref()
  slots.push(slot)
  return slot
}

/** Removes a slot whose worker is dead or doomed; the next job starts a fresh one. */
function retire(slot: Slot): void {
  clearTimeout(slot.timer)
  clearTimeout(slot.idle)
  slot.job = undefined
  const i = slots.indexOf(slot)
  if (i >= 0) slots.splice(i, 1)
  void slot.worker.terminate()
  pump()
}

function finish(slot: Slot): void {
  clearTimeout(slot.timer)
  slot.job = undefined
  slot.idle = setTimeout(() => retire(slot), IDLE_MS).unref()
  pump()
}

function pump(): void {
  while (queue.length > 0) {
    const slot = slots.find((s) => !s.job) ?? (slots.length < POOL_SIZE ? startSlot() : undefined)
    if (!slot) return
    const job = queue.shift()!
    clearTimeout(slot.idle)
    slot.job = job
    // The timer is not unref'd: a pending decode keeps the process alive until it settles.
    slot.timer = setTimeout(() => {
      retire(slot)
      job.reject(new Error(`decoder did not finish within ${job.timeoutMs} ms`))
    }, job.timeoutMs)
    // A real copy: Buffer#slice is a view, and transferring a view's buffer would detach the caller's data.
    const copy = new Uint8Array(job.bytes)
    slot.worker.postMessage({ id: job.id, format: job.format, bytes: copy }, [copy.buffer])
  }
}

/** Decodes `bytes` with `audio-decode`'s `format` decoder in a worker; rejects on error, crash or timeout. */
export function decodeInWorker(
  format: string,
  bytes: Uint8Array,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<RawAudio> {
  return new Promise<RawAudio>((resolve, reject) => {
    let onAbort: (() => void) | undefined
    const settle =
      <T>(fn: (value: T) => void) =>
      (value: T): void => {
        if (onAbort) signal?.removeEventListener('abort', onAbort)
        fn(value)
      }
    const id = nextId++
    const job: Job = { id, format, bytes, timeoutMs, resolve: settle(resolve), reject: settle(reject) }
    if (signal) {
      onAbort = () => {
        const queued = queue.indexOf(job)
        if (queued >= 0) queue.splice(queued, 1)
        const slot = slots.find((s) => s.job === job)
        if (slot) retire(slot)
        job.reject(signal.reason instanceof Error ? signal.reason : new DOMException('Aborted', 'AbortError'))
      }
      if (signal.aborted) return onAbort()
      signal.addEventListener('abort', onAbort, { once: true })
    }
    queue.push(job)
    pump()
  })
}
