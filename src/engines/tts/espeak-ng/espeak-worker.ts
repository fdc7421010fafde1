import type { Worker } from 'node:worker_threads'
import { SpeechError } from '../../../errors.js'
import { siblingWorkerUrl, startModuleWorker } from '../../../module-worker.js'
import type { EspeakJob, EspeakReply, EspeakVoiceInfo } from './protocol.js'

type RunMessage = Extract<EspeakReply, { type: 'chunk' | 'done' }>
type JobInput = Omit<EspeakJob, 'type' | 'id' | 'stop'>

const START_TIMEOUT_MS = 30_000

/** The messages of one synthesis, in order, as they arrive; `stop()` asks the worker to end it early. */
export class EspeakRun {
  readonly #queue: RunMessage[] = []
  readonly #stop = new Int32Array(new SharedArrayBuffer(4))
  #waiter?: { resolve: (m: RunMessage) => void; reject: (e: unknown) => void }
  #error?: unknown
  #ended = false
  readonly ended: Promise<void>
  #markEnded!: () => void

  constructor() {
    this.ended = new Promise((resolve) => (this.#markEnded = resolve))
  }

  get stopFlag(): Int32Array {
    return this.#stop
  }

  /** True once the worker said `done` or failed; the worker is free again. */
  get finished(): boolean {
    return this.#ended
  }

  stop(): void {
    Atomics.store(this.#stop, 0, 1)
  }

  next(): Promise<RunMessage> {
    const m = this.#queue.shift()
    if (m) return Promise.resolve(m)
    if (this.#error) return Promise.reject(this.#error)
    return new Promise((resolve, reject) => (this.#waiter = { resolve, reject }))
  }

  push(m: RunMessage): void {
    if (m.type === 'done') this.#end()
    const w = this.#waiter
    this.#waiter = undefined
    if (w) w.resolve(m)
    else this.#queue.push(m)
  }

  fail(err: unknown): void {
    this.#error = err
    this.#end()
    const w = this.#waiter
    this.#waiter = undefined
    w?.reject(err)
  }

  #end(): void {
    this.#ended = true
    this.#markEnded()
  }
}

/** One worker thread with eSpeak NG loaded; runs one synthesis at a time. */
export class EspeakWorker {
  readonly #worker: Worker
  readonly #exitListeners: (() => void)[] = []
  #run?: { id: number; run: EspeakRun }
  #nextId = 1
  #dead = false

  private constructor(worker: Worker) {
    this.#worker = worker
  }

  static start(): Promise<{ worker: EspeakWorker; voices: readonly EspeakVoiceInfo[]; sampleRate: number }> {
    const worker = startModuleWorker(siblingWorkerUrl(import.meta.url, 'worker'))
    const self = new EspeakWorker(worker)
    return new Promise((resolve, reject) => {
      const fail = (why: string): void => {
        clearTimeout(timer)
        self.terminate()
        reject(new SpeechError('unavailable', `[espeak-ng] worker did not start: ${why}`))
      }
      const timer = setTimeout(() => fail('no answer within 30 s'), START_TIMEOUT_MS)
      worker.once('message', (m: EspeakReply) => {
        if (m.type !== 'ready') return fail(`unexpected ${m.type}`)
        clearTimeout(timer)
        worker.on('message', (reply: EspeakReply) => self.#onReply(reply))
        resolve({ worker: self, voices: m.voices, sampleRate: m.sampleRate })
      })
      worker.on('error', (err) => fail(err.message))
      worker.on('exit', (code) => self.#onExit(code))
    })
  }

  get alive(): boolean {
    return !this.#dead
  }

  onExit(listener: () => void): void {
    this.#exitListeners.push(listener)
  }

  synth(job: JobInput): EspeakRun {
    const run = new EspeakRun()
    if (this.#dead) {
      run.fail(new SpeechError('engine_failed', '[espeak-ng] worker is gone'))
      return run
    }
    const id = this.#nextId++
    this.#run = { id, run }
    this.#worker.postMessage({ ...job, type: 'synth', id, stop: run.stopFlag } satisfies EspeakJob)
    return run
  }

  terminate(): void {
    if (this.#dead) return
    this.#dead = true
    void this.#worker.terminate()
  }

  #onReply(reply: EspeakReply): void {
    if (reply.type === 'ready' || reply.id !== this.#run?.id) return
    const { run } = this.#run
    if (reply.type === 'error') {
      this.#run = undefined
      run.fail(new SpeechError('engine_failed', `[espeak-ng] synthesis failed: ${reply.message}`))
      return
    }
    if (reply.type === 'done') this.#run = undefined
    run.push(reply)
  }

  #onExit(code: number): void {
    this.#dead = true
    this.#run?.run.fail(new SpeechError('engine_failed', `[espeak-ng] worker exited (code ${code}) during synthesis`))
    this.#run = undefined
    for (const listener of this.#exitListeners.splice(0)) listener()
  }
}
