import type { Worker } from 'node:worker_threads'
import { siblingWorkerUrl, startModuleWorker } from '../module-worker.js'
import { createDecodeOutput, type DecodeOutput } from './decode-output.js'
import type { AckMessage, DecodeJobMessage, DecodeReply } from './decode-protocol.js'
import type { MonoSamples } from './types.js'

/**
 * Decoding runs in worker threads (decode-thread.ts): a 10-minute upload no longer blocks the event
 * loop, a decoder stuck in a loop on hostile bytes is terminated at the deadline, and a runaway allocation
 * hits the worker's heap limit instead of the server's. (V8 can still abort the whole process on a single
 * absurd allocation, so inputs are sanity-checked before they get here.)
 */
export interface DecodeRequest {
  /** `audio-decode`'s format key. */
  readonly format: string
  readonly bytes: Uint8Array
  readonly timeoutMs: number
  /** Move `bytes` to the worker (detaching them) when they fill their buffer, instead of copying them. */
  readonly transfer?: boolean
  /** Output rate; absent means the rate of the first decoded block. */
  readonly targetRate?: number
  /** Output samples as floats (default) or 16-bit integers. */
  readonly sampleType?: 'float32' | 'int16'
  /** Decoding stops, with a `too-long` result, once more than this many seconds have come out. */
  readonly maxSeconds?: number
  readonly signal?: AbortSignal
}

/** Mono samples at the output rate; `channels` is the file's channel count. */
export type DecodeResult =
  | { readonly kind: 'done'; readonly samples: MonoSamples; readonly sampleRate: number;
      readonly channels: number }
  | { readonly kind: 'too-long'; readonly decodedSeconds: number }

const POOL_SIZE = 2
const IDLE_MS = 60_000
const HEAP_LIMIT_MB = 1024

interface Job {
  readonly id: number
  readonly request: DecodeRequest
  /** Where the worker's blocks go, resampled as they arrive. */
  readonly output: DecodeOutput
  readonly resolve: (result: DecodeResult) => void
  readonly reject: (err: Error) => void
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
  const worker = startModuleWorker(siblingWorkerUrl(import.meta.url, 'decode-thread'), {
    resourceLimits: { maxOldGenerationSizeMb: HEAP_LIMIT_MB },
  })
  const slot: Slot = { worker }
  worker.on('message', (reply: DecodeReply) => {
    const job = slot.job
    if (job && job.id === reply.id) onReply(slot, job, reply)
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

function onReply(slot: Slot, job: Job, reply: DecodeReply): void {
  if (reply.type === 'block') {
    try {
      job.output.add(reply.samples, reply.sampleRate, reply.expectedSeconds)
    } catch (err) {
      retire(slot)
      job.reject(err instanceof Error ? err : new Error(String(err)))
      return
    }
    const ack: AckMessage = { type: 'ack', id: job.id, spare: reply.samples }
    slot.worker.postMessage(ack, [reply.samples.buffer as ArrayBuffer])
    return
  }
  finish(slot)
  if (reply.type === 'failed') job.reject(new Error(reply.message))
  else if (reply.type === 'too-long') job.resolve({ kind: 'too-long', decodedSeconds: reply.decodedSeconds })
  else job.resolve({ kind: 'done', channels: reply.channels, ...job.output.finish() })
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
    const { format, bytes, timeoutMs, maxSeconds, transfer } = job.request
    slot.timer = setTimeout(() => {
      retire(slot)
      job.reject(new Error(`decoder did not finish within ${timeoutMs} ms`))
    }, timeoutMs)
    // A view (Buffer#slice, a field of a MessagePack body) is copied: transferring its buffer would detach
    // data that is not ours.
    const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength
    const copy = transfer && whole && bytes.buffer instanceof ArrayBuffer ? bytes : new Uint8Array(bytes)
    const message: DecodeJobMessage = {
      type: 'job', id: job.id, format, bytes: copy, ...(maxSeconds !== undefined && { maxSeconds }),
    }
    slot.worker.postMessage(message, [copy.buffer as ArrayBuffer])
  }
}

/** Decodes with `audio-decode`'s `format` decoder in a worker; rejects on error, crash or timeout. */
export function decodeInWorker(request: DecodeRequest): Promise<DecodeResult> {
  const { signal } = request
  return new Promise<DecodeResult>((resolve, reject) => {
    let onAbort: (() => void) | undefined
    const settle =
      <T>(fn: (value: T) => void) =>
      (value: T): void => {
        if (onAbort) signal?.removeEventListener('abort', onAbort)
        fn(value)
      }
    const job: Job = {
      id: nextId++, request, output: createDecodeOutput(request.targetRate, request.sampleType),
      resolve: settle(resolve), reject: settle(reject),
    }
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
