import type { Worker } from 'node:worker_threads'
import { SpeechError } from '../../../errors.js'
import { startModuleWorker } from '../../../module-worker.js'
import { float32ToInt16 } from '../../../audio/signal.js'
import type { MonoSamples } from '../../../audio/types.js'
import type { RecognizedWord } from '../types.js'
import type { WorkerReply, WorkerRequest, WorkerSetup } from './protocol.js'

export interface PoolOptions {
  readonly size: number
  /** The worker module (worker.ts, or worker.js in a compiled build). */
  readonly script: URL
  readonly setup: Omit<WorkerSetup, 'cancel'>
  /** How long a cancelled job may take to stop before its worker is retired and replaced. */
  readonly stopTimeoutMs?: number
}

interface Job {
  readonly id: number
  /** 16 kHz s16, what the decoder takes: half the size of the caller's floats, and transferred. */
  readonly pcm: Int16Array
  readonly words?: readonly string[]
  readonly resolve: (words: RecognizedWord[]) => void
  readonly reject: (err: unknown) => void
  cleanup: () => void
  /** Set once the caller has been answered (abort); the worker's late reply is then ignored. */
  settled: boolean
  /** A live utterance holding its worker until it ends: its replies go here. */
  readonly stream?: { onReply(reply: WorkerReply): void; readonly channel?: Int16Array }
}

/** A live utterance on one decoder worker (see `DecoderPool.openStream`). */
export interface PoolStream {
  /** Decodes more audio (16 kHz s16, transferred); resolves with the best hypothesis so far. */
  feed(pcm: Int16Array): Promise<string[]>
  /** Ends the utterance: its words, timed from its first sample. The worker is then free. */
  end(): Promise<RecognizedWord[]>
  /** The words `end()` would give now, the utterance going on; an abort of `signal` stops this decode only. */
  decodeSoFar(signal: AbortSignal): Promise<RecognizedWord[]>
}

interface Slot {
  worker: Worker
  cancel: Int32Array
  ready: boolean
  exited: boolean
  job?: Job
  stopTimer?: NodeJS.Timeout
}

function abortError(signal: AbortSignal): DOMException {
  return new DOMException('[pocketsphinx] transcription aborted', { name: 'AbortError', cause: signal.reason })
}

/**
 * A fixed set of decoder workers with a FIFO queue. Queued jobs are dropped at once on abort; a running
 * one is asked to stop between blocks (a shared flag the worker polls) and, if it does not stop in time,
 * its worker is retired (it ends after the block) and a new one takes its place, so the pool stays at
 * full strength.
 */
export class DecoderPool {
  readonly #options: PoolOptions
  readonly #slots: Slot[] = []
  readonly #queue: Job[] = []
  #nextId = 1
  #closed = false
  #fatal: SpeechError | undefined
  readonly #readyWaiters: { resolve: () => void, reject: (err: unknown) => void }[] = []

  constructor(options: PoolOptions) {
    this.#options = options
    for (let i = 0; i < options.size; i++) this.#slots.push(this.#spawn())
  }

  /** Resolves when every worker has its decoder loaded; rejects when the decoder cannot be created. */
  ready(): Promise<void> {
    if (this.#fatal) return Promise.reject(this.#fatal)
    if (this.#closed) return Promise.reject(new SpeechError('unavailable', '[pocketsphinx] engine is closed'))
    if (this.#slots.every((s) => s.ready)) return Promise.resolve()
    const waiting = new Promise<void>((resolve, reject) => this.#readyWaiters.push({ resolve, reject }))
    this.#updateRefs()
    return waiting
  }

  /** Recognises `samples` (16 kHz), or with `words` aligns them to exactly those words (`align` in decoder.ts). */
  run(samples: MonoSamples, signal?: AbortSignal, words?: readonly string[]): Promise<RecognizedWord[]> {
    if (signal?.aborted) return Promise.reject(abortError(signal))
    if (this.#fatal) return Promise.reject(this.#fatal)
    if (this.#closed) return Promise.reject(new SpeechError('unavailable', '[pocketsphinx] engine is closed'))
    if (samples.length === 0) return Promise.resolve([])
    return new Promise((resolve, reject) => {
      // A private copy (posting a view would clone its whole backing buffer), in 16 bits so the worker gets
      // what the decoder reads and no second copy of each utterance is left for its garbage collector.
      const pcm = samples instanceof Int16Array ? samples.slice() : float32ToInt16(samples)
      this.#enqueue({ id: this.#nextId++, pcm, ...(words && { words }), resolve, reject, cleanup: () => {}, settled: false }, signal)
    })
  }

  /**
   * Takes a worker for a live utterance that starts with `first` (16 kHz s16, transferred), waiting in the same
   * line as `run`. Resolves with the stream and the hypothesis of `first` once a worker has decoded it. The
   * worker is held until `end()`, a failure or `signal` aborts (which drops the utterance).
   */
  openStream(first: Int16Array, signal?: AbortSignal, channel?: Int16Array): Promise<{ stream: PoolStream; words: string[] }> {
    if (signal?.aborted) return Promise.reject(abortError(signal))
    if (this.#fatal) return Promise.reject(this.#fatal)
    if (this.#closed) return Promise.reject(new SpeechError('unavailable', '[pocketsphinx] engine is closed'))
    const id = this.#nextId++
    const waiting: { resolve: (value: never) => void; reject: (err: unknown) => void }[] = []
    let ended = false
    let failure: unknown
    const post = <T>(message: WorkerRequest, transfer: ArrayBuffer[] = []): Promise<T> => {
      if (failure !== undefined) return Promise.reject(failure)
      if (ended || job.settled) return Promise.reject(new SpeechError('bad_request', '[pocketsphinx] live utterance already ended'))
      const slot = this.#slots.find((s) => s.job === job)
      if (!slot) return Promise.reject(new SpeechError('engine_failed', '[pocketsphinx] live utterance lost its worker'))
      return new Promise<T>((resolve, reject) => {
        waiting.push({ resolve: resolve as (value: never) => void, reject })
        slot.worker.postMessage(message, transfer)
      })
    }
    const stream: PoolStream = {
      feed: (pcm) => post({ type: 'stream-feed', id, pcm }, [pcm.buffer as ArrayBuffer]),
      decodeSoFar: (signal) => {
        if (signal.aborted) return Promise.reject(abortError(signal))
        const spec = this.#nextId++
        const words = post<RecognizedWord[]>({ type: 'stream-so-far', id, spec })
        // The worker stops between blocks; the caller is answered at once (its reply is then ignored).
        const onAbort = () => {
          const slot = this.#slots.find((s) => s.job === job)
          if (slot) Atomics.store(slot.cancel, 0, spec)
        }
        signal.addEventListener('abort', onAbort, { once: true })
        const aborted = new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(abortError(signal)), { once: true }))
        aborted.catch(() => {})
        return Promise.race([words, aborted]).finally(() => signal.removeEventListener('abort', onAbort))
      },
      end: () => {
        const words = post<RecognizedWord[]>({ type: 'stream-end', id })
        ended = true
        return words
      },
    }
    let open: { resolve: (value: { stream: PoolStream; words: string[] }) => void; reject: (err: unknown) => void } | undefined
    const job: Job = {
      id, pcm: first, settled: false, cleanup: () => {},
      resolve: () => {},
      // A failure, crash, abort or close answers the opening or every reply still awaited.
      reject: (err) => {
        ended = true
        failure = err
        open?.reject(err)
        open = undefined
        for (const w of waiting.splice(0)) w.reject(err)
      },
      stream: {
        ...(channel && { channel: channel.slice() }),
        onReply: (reply) => {
          if (reply.type === 'partial' && open) {
            open.resolve({ stream, words: reply.words })
            open = undefined
          } else if (reply.type === 'partial' || reply.type === 'so-far' || (reply.type === 'done' && !reply.stopped)) {
            waiting.shift()?.resolve(reply.words as never)
          }
        },
      },
    }
    return new Promise((resolve, reject) => {
      open = { resolve, reject }
      this.#enqueue(job, signal)
    })
  }

  /** Queues a job for the next free worker; an abort of `signal` drops it from the queue or stops it. */
  #enqueue(job: Job, signal: AbortSignal | undefined): void {
    if (signal) {
      const onAbort = () => this.#abort(job, signal)
      signal.addEventListener('abort', onAbort, { once: true })
      job.cleanup = () => signal.removeEventListener('abort', onAbort)
    }
    this.#queue.push(job)
    this.#dispatch()
  }

  /** Ends every worker, letting each free its decoder; waits up to `graceMs` before terminating. */
  async close(graceMs = 3000): Promise<void> {
    this.#closed = true
    const err = new SpeechError('unavailable', '[pocketsphinx] engine closed')
    for (const job of this.#queue.splice(0)) this.#settle(job, err)
    for (const slot of this.#slots) if (slot.job) this.#settle(slot.job, err)
    await Promise.all(this.#slots.filter((s) => !s.exited).map(async (slot) => {
      const exited = new Promise<void>((resolve) => slot.worker.once('exit', () => resolve()))
      this.#retire(slot)
      const timer = setTimeout(() => void slot.worker.terminate(), graceMs)
      await exited
      clearTimeout(timer)
    }))
  }

  /** Asks a worker to stop its current job (if any), free its decoder and end. */
  #retire(slot: Slot): void {
    clearTimeout(slot.stopTimer)
    if (slot.job) Atomics.store(slot.cancel, 0, slot.job.id)
    slot.job = undefined
    slot.ready = false
    const close: WorkerRequest = { type: 'close' }
    slot.worker.postMessage(close)
    slot.worker.unref()
  }

  #spawn(): Slot {
    const cancel = new SharedArrayBuffer(4)
    const worker = startModuleWorker(this.#options.script, {
      workerData: { ...this.#options.setup, cancel } satisfies WorkerSetup,
    })
    const slot: Slot = { worker, cancel: new Int32Array(cancel), ready: false, exited: false }
    worker.on('message', (reply: WorkerReply) => this.#onReply(slot, reply))
    worker.on('error', (err) => this.#onCrash(slot, err))
    worker.on('exit', (code) => {
      slot.exited = true
      this.#onCrash(slot, new Error(`worker exited with code ${code}`))
    })
    this.#updateRefs(slot)
    return slot
  }

  /** Workers keep the process alive only while someone waits on them, so an idle engine never blocks exit. */
  #updateRefs(...only: Slot[]): void {
    const wanted = this.#queue.length > 0 || this.#readyWaiters.length > 0
    for (const slot of only.length > 0 ? only : this.#slots) {
      if (wanted || slot.job) slot.worker.ref()
      else slot.worker.unref()
    }
  }

  #onReply(slot: Slot, reply: WorkerReply): void {
    if (reply.type === 'ready') {
      slot.ready = true
      if (this.#slots.every((s) => s.ready)) for (const w of this.#readyWaiters.splice(0)) w.resolve()
      this.#dispatch()
      this.#updateRefs()
      return
    }
    if (reply.type === 'init-failed') {
      const msg = reply.message.startsWith('[') ? reply.message : `[pocketsphinx] ${reply.message}`
      this.#fail(new SpeechError('unavailable', msg))
      return
    }
    const job = slot.job
    if (!job || job.id !== reply.id) return
    if (job.stream && !job.settled) job.stream.onReply(reply)
    // A live utterance keeps its worker until it is done.
    if (reply.type === 'partial' || reply.type === 'so-far') return
    this.#release(slot)
    if (reply.type === 'done') {
      if (!reply.stopped) this.#settle(job, undefined, reply.words)
    } else {
      this.#settle(job, new SpeechError('engine_failed', reply.message))
    }
    this.#dispatch()
  }

  #onCrash(slot: Slot, err: Error): void {
    const index = this.#slots.indexOf(slot)
    if (index < 0 || this.#closed || this.#fatal) return
    const job = slot.job
    this.#release(slot)
    if (job) {
      const msg = `[pocketsphinx] decoder worker died: ${err.message}`
      this.#settle(job, new SpeechError('engine_failed', msg, { cause: err }))
    }
    if (!slot.ready && !this.#fatal) {
      // Dying before the decoder loaded will happen again: stop instead of respawning forever.
      const msg = `[pocketsphinx] decoder worker failed to start: ${err.message}`
      this.#fail(new SpeechError('unavailable', msg, { cause: err }))
      return
    }
    this.#slots[index] = this.#spawn()
  }

  #fail(err: SpeechError): void {
    this.#fatal = err
    for (const w of this.#readyWaiters.splice(0)) w.reject(err)
    for (const job of this.#queue.splice(0)) this.#settle(job, err)
    for (const slot of this.#slots) {
      if (slot.job) this.#settle(slot.job, err)
      this.#retire(slot)
    }
  }

  #dispatch(): void {
    for (const slot of this.#slots) {
      if (!slot.ready || slot.job) continue
      const job = this.#queue.shift()
      if (!job) break
      slot.job = job
      const message: WorkerRequest = job.stream
        ? { type: 'stream-start', id: job.id, pcm: job.pcm, ...(job.stream.channel && { channel: job.stream.channel }) }
        : { type: 'job', id: job.id, pcm: job.pcm, ...(job.words && { words: job.words }) }
      slot.worker.postMessage(message, [job.pcm.buffer as ArrayBuffer])
    }
    this.#updateRefs()
  }

  #release(slot: Slot): void {
    clearTimeout(slot.stopTimer)
    slot.stopTimer = undefined
    slot.job = undefined
    this.#updateRefs(slot)
  }

  #abort(job: Job, signal: AbortSignal): void {
    const queued = this.#queue.indexOf(job)
    if (queued >= 0) this.#queue.splice(queued, 1)
    this.#settle(job, abortError(signal))
    const slot = this.#slots.find((s) => s.job === job)
    if (!slot) return
    Atomics.store(slot.cancel, 0, job.id)
    // A live utterance's worker is waiting for its next message, not polling the flag.
    if (job.stream) slot.worker.postMessage({ type: 'stream-cancel', id: job.id } satisfies WorkerRequest)
    slot.stopTimer = setTimeout(() => {
      if (slot.job !== job) return
      // Native code cannot be interrupted, so terminate() would neither be faster nor free the decoder:
      // the stuck worker finishes its block, frees its decoder and ends, while a fresh one takes its place.
      const index = this.#slots.indexOf(slot)
      this.#retire(slot)
      if (index >= 0 && !this.#closed) {
        this.#slots[index] = this.#spawn()
        this.#dispatch()
      }
    }, this.#options.stopTimeoutMs ?? 5000)
    slot.stopTimer.unref()
  }

  #settle(job: Job, err: unknown, words?: RecognizedWord[]): void {
    if (job.settled) return
    job.settled = true
    job.cleanup()
    if (err === undefined) job.resolve(words ?? [])
    else job.reject(err)
  }
}
