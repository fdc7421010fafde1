import type { Worker } from 'node:worker_threads'
import { SpeechError } from '../../../errors.js'
import { siblingWorkerUrl, startModuleWorker } from '../../../module-worker.js'
import type { FliteJob, FliteReply } from './protocol.js'
import type { ByteRange } from './wasm-layout.js'

type Result = Extract<FliteReply, { type: 'result' }>
type JobInput = Omit<FliteJob, 'type' | 'id'>

const START_TIMEOUT_MS = 30_000

/** One worker thread running flite; jobs are answered in order. Terminating it fails what is outstanding. */
export class FliteWorker {
  readonly #worker: Worker
  readonly #pending = new Map<number, { resolve: (r: Result) => void; reject: (e: unknown) => void }>()
  readonly #exitListeners: (() => void)[] = []
  #nextId = 1
  #dead = false

  private constructor(worker: Worker) {
    this.#worker = worker
  }

  static start(module: WebAssembly.Module, readOnly: ByteRange | undefined): Promise<FliteWorker> {
    const workerData = { module, readOnly }
    const worker = startModuleWorker(siblingWorkerUrl(import.meta.url, 'worker'), { workerData })
    const self = new FliteWorker(worker)
    return new Promise((resolve, reject) => {
      const fail = (why: string): void => {
        clearTimeout(timer)
        void worker.terminate()
        reject(new SpeechError('unavailable', `[flite] worker did not start: ${why}`))
      }
      const timer = setTimeout(() => fail('no answer within 30 s'), START_TIMEOUT_MS)
      worker.once('message', (m: FliteReply) => {
        if (m.type !== 'ready') return fail(`unexpected ${m.type}`)
        clearTimeout(timer)
        worker.on('message', (reply: FliteReply) => self.#onReply(reply))
        resolve(self)
      })
      worker.on('error', (err) => (self.#dead ? undefined : fail(err.message)))
      worker.on('exit', (code) => self.#onExit(code))
    })
  }

  get alive(): boolean {
    return !this.#dead
  }

  get pending(): number {
    return this.#pending.size
  }

  onExit(listener: () => void): void {
    this.#exitListeners.push(listener)
  }

  run(job: JobInput): Promise<Result> {
    if (this.#dead) return Promise.reject(new SpeechError('engine_failed', '[flite] worker is gone'))
    const id = this.#nextId++
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject })
      this.#worker.postMessage({ ...job, type: 'synth', id } satisfies FliteJob)
    })
  }

  /** Stops the worker at once, even inside a synchronous wasm run. */
  terminate(): void {
    if (this.#dead) return
    this.#dead = true
    void this.#worker.terminate()
  }

  #onReply(reply: FliteReply): void {
    if (reply.type === 'ready') return
    const p = this.#pending.get(reply.id)
    if (!p) return
    this.#pending.delete(reply.id)
    if (reply.type === 'result') p.resolve(reply)
    else p.reject(new SpeechError('engine_failed', `[flite] synthesis failed: ${reply.message}`))
  }

  #onExit(code: number): void {
    this.#dead = true
    const err = new SpeechError('engine_failed', `[flite] worker exited (code ${code}) during synthesis`)
    for (const p of this.#pending.values()) p.reject(err)
    this.#pending.clear()
    for (const listener of this.#exitListeners.splice(0)) listener()
  }
}
