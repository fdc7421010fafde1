import { spawn, type ChildProcess } from 'node:child_process'
import { setPriority } from 'node:os'
import { bundle } from '../../module-worker.js'
import { fromTransfer } from './pcm-transfer.js'
import { SpeechError } from '../../errors.js'
import { abortReason } from '../../abort.js'
import type { AsrLanguage, AsrLoadConfig, AsrRawResult, FromHost, ToHost, TtsLoadConfig, VadLoadConfig } from './protocol.js'

export interface LoadedModel { readonly sampleRate: number; readonly speakers: number }
export interface SynthCall { readonly key: string; readonly text: string; readonly sid: number; readonly speed: number; readonly lang?: string; readonly reference?: Extract<ToHost, { t: 'synth' }>['reference'] }

interface Pending { push(m: FromHost): void; fail(err: Error): void }

export interface NeuralHostOptions {
  /**
   * A throwaway process that only checks whether the runtime takes a package (model-checks.ts): it runs below
   * request work in priority, and its ending is the check's verdict, not a runtime process lost.
   */
  readonly probe?: boolean
}

let unexpectedExits = 0
/** Serving runtime processes that ended without Parla stopping them, since this process started (`/metrics`). */
export const neuralProcessExits = () => unexpectedExits

/**
 * One neural host child process (host-main.ts, bundled like module workers and run with `node -e`), with
 * request/response over IPC. If the child dies, every call in flight fails with `engine_failed` and the
 * host reports itself dead so the pool replaces it.
 */
export class NeuralHost {
  readonly #child: ChildProcess
  readonly #loads = new Map<string, Promise<LoadedModel>>()
  readonly #calls = new Map<number, Pending>()
  readonly #loadWaiters = new Map<string, Pending>()
  #nextId = 1
  #lastRun: { readonly sentences: number; readonly cancelled: boolean } | undefined
  #exitReason: string | undefined
  readonly #onExit: ((reason: string) => void)[] = []
  #stopped = false

  constructor(options: NeuralHostOptions = {}) {
    const code = bundle(new URL(`./host-main${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url))
    this.#child = spawn(process.execPath, ['--input-type=module', '-e', code], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'], serialization: 'advanced' })
    // Nice 10: a check loading a large model must not take the cores from requests being spoken.
    if (options.probe && this.#child.pid !== undefined) {
      try { setPriority(this.#child.pid, 10) } catch { /* not permitted here: it runs at normal priority */ }
    }
    let stderr = ''
    this.#child.stderr!.on('data', (d: Buffer) => { stderr = (stderr + d.toString()).slice(-2000) })
    this.#child.on('message', (m: FromHost) => {
      if (m.t === 'loaded' || m.t === 'load-failed') this.#loadWaiters.get(m.key)?.push(m)
      else if (m.t === 'done') {
        this.#lastRun = { sentences: m.sentences, cancelled: m.cancelled }
        this.#calls.get(m.id)?.push(m)
      }
      else this.#calls.get(m.id)?.push(m)
    })
    // A message sent as the process ends (its channel just closed) is an 'error' here; 'exit' reports the end.
    this.#child.on('error', () => {})
    this.#child.on('exit', (code, signal) => {
      this.#exitReason = `the neural runtime process ended (${signal ?? `exit code ${code}`})${stderr.trim() ? `: ${lastLine(stderr)}` : ''}`
      if (!this.#stopped && !options.probe) unexpectedExits++
      const err = new SpeechError('engine_failed', `[neural] ${this.#exitReason}`)
      for (const p of [...this.#calls.values(), ...this.#loadWaiters.values()]) p.fail(err)
      for (const f of this.#onExit) f(this.#exitReason)
    })
  }

  /** How the last synthesis ended in the runtime: sentences generated, and whether a cancel stopped it. */
  get lastRun() { return this.#lastRun }

  get alive(): boolean { return this.#exitReason === undefined }
  /** The process id (tests end a process the way the runtime or the machine would). */
  get pid(): number | undefined { return this.#child.pid }
  /** Why the process ended (exit code or signal, and its last line of standard error), once it did. */
  get exitReason(): string | undefined { return this.#exitReason }
  /** Called once when the process ends, with why; not when `terminate` stopped it. */
  onExit(f: (reason: string) => void): void { this.#onExit.push((reason) => this.#stopped || f(reason)) }

  /** Loads a TTS model once per process; rejects with `engine_failed` naming why the runtime refused it. */
  load(key: string, config: TtsLoadConfig, threads: number): Promise<LoadedModel> {
    return this.#load(key, { t: 'load', key, config, threads })
  }

  /** Loads an ASR model once per process. */
  loadAsr(key: string, config: AsrLoadConfig, threads: number): Promise<LoadedModel> {
    return this.#load(`asr:${key}`, { t: 'asr-load', key: `asr:${key}`, config, threads })
  }

  /** Loads a voice activity model once per process (see host-vad.ts). */
  loadVad(key: string, config: VadLoadConfig): Promise<LoadedModel> {
    return this.#load(`vad:${key}`, { t: 'vad-load', key: `vad:${key}`, config })
  }

  /** Opens or closes a voice activity stream of a loaded VAD model (no answer). */
  vadControl(m: Extract<ToHost, { t: 'vad-open' | 'vad-close' }>): void {
    this.#send(m.t === 'vad-open' ? { ...m, key: `vad:${m.key}` } : m)
  }

  /** A stream's speech flags, one per VAD window these samples completed. */
  vadAudio(stream: number, samples: Float32Array): Promise<readonly boolean[]> {
    const id = this.#nextId++
    return new Promise((resolve, reject) => {
      this.#calls.set(id, {
        push: (m) => {
          if (m.t === 'vad-flags') resolve(m.flags)
          else if (m.t === 'failed') reject(new SpeechError('engine_failed', `[vad] ${m.message}`))
          else return
          this.#calls.delete(id)
        },
        fail: (err) => { this.#calls.delete(id); reject(err) },
      })
      try {
        this.#send({ t: 'vad-audio', id, stream, samples })
      } catch (err) {
        this.#calls.delete(id)
        reject(err)
      }
    })
  }

  /**
   * Recognises one utterance (`language`: see `AsrLanguage`; undefined for models that take none). An abort rejects at once; the runtime cannot stop a decode half-way, so the
   * returned `settled` promise says when the process is free again.
   */
  transcribe(key: string, samples: Float32Array, sampleRate: number, signal?: AbortSignal, language?: AsrLanguage): { result: Promise<AsrRawResult>; settled: Promise<void> } {
    const id = this.#nextId++
    let settle!: () => void
    const settled = new Promise<void>((r) => (settle = r))
    const result = new Promise<AsrRawResult>((resolve, reject) => {
      const onAbort = () => reject(abortReason(signal!))
      signal?.addEventListener('abort', onAbort, { once: true })
      const done = () => { signal?.removeEventListener('abort', onAbort); this.#calls.delete(id); settle() }
      this.#calls.set(id, {
        push: (m) => {
          if (m.t === 'transcribed') resolve(m.result)
          else if (m.t === 'failed') reject(new SpeechError('engine_failed', `[neural] recognition failed: ${m.message}`))
          else return
          done()
        },
        fail: (err) => { reject(err); done() },
      })
      try {
        this.#send({ t: 'transcribe', id, key: `asr:${key}`, samples, sampleRate, ...(language !== undefined && { language }) })
      } catch (err) {
        reject(err)
        done()
      }
    })
    result.catch(() => {})
    return { result, settled }
  }

  /** An id for a live utterance of an online model: its feeds carry it, `dropStream` forgets it. */
  newStreamId(): number {
    return this.#nextId++
  }

  /**
   * Feeds live utterance `id` (opened by its first feed) and answers its text so far; `last` ends it and
   * answers all of it. Feeds of one utterance go one at a time. An abort rejects at once; the process finishes
   * the feed it has (a few hundred ms of audio at most) before it reads the next message.
   */
  feedStream(key: string, id: number, samples: Float32Array, last: boolean, signal?: AbortSignal): Promise<AsrRawResult> {
    return new Promise<AsrRawResult>((resolve, reject) => {
      if (signal?.aborted) return reject(abortReason(signal))
      const onAbort = () => { done(); reject(abortReason(signal!)) }
      signal?.addEventListener('abort', onAbort, { once: true })
      const done = () => { signal?.removeEventListener('abort', onAbort); this.#calls.delete(id) }
      this.#calls.set(id, {
        push: (m) => {
          if (m.t === 'stream-result') resolve(m.result)
          else if (m.t === 'failed') reject(new SpeechError('engine_failed', `[neural] live recognition failed: ${m.message}`))
          else return
          done()
        },
        fail: (err) => { done(); reject(err) },
      })
      try {
        this.#send({ t: 'stream-feed', id, key: `asr:${key}`, samples, last })
      } catch (err) {
        done()
        reject(err)
      }
    })
  }

  /** Forgets live utterance `id` in the process (its caller dropped it); nothing when the process has ended. */
  dropStream(id: number): void {
    this.#calls.delete(id)
    if (this.alive) this.#child.send({ t: 'stream-drop', id } satisfies ToHost)
  }

  #load(key: string, message: ToHost): Promise<LoadedModel> {
    let loading = this.#loads.get(key)
    if (!loading) {
      loading = new Promise<LoadedModel>((resolve, reject) => {
        this.#loadWaiters.set(key, {
          push: (m) => {
            this.#loadWaiters.delete(key)
            if (m.t === 'loaded') resolve({ sampleRate: m.sampleRate, speakers: m.speakers })
            else if (m.t === 'load-failed') reject(new SpeechError('engine_failed', `[neural] could not load model ${key}: ${m.message}`))
          },
          fail: reject,
        })
        this.#send(message)
      })
      loading.catch(() => this.#loads.delete(key))
      this.#loads.set(key, loading)
    }
    return loading
  }

  /** Audio pieces as the runtime produces them (one per sentence). Abort or `return()` cancels in the runtime. */
  async *synthesize(call: SynthCall, signal?: AbortSignal): AsyncGenerator<Float32Array> {
    const id = this.#nextId++
    const queue: (FromHost | Error)[] = []
    let wake: (() => void) | undefined
    const push = (m: FromHost | Error) => { queue.push(m); wake?.() }
    this.#calls.set(id, { push, fail: push })
    const onAbort = () => push(abortReason(signal!) as Error)
    signal?.addEventListener('abort', onAbort, { once: true })
    let finished = false
    try {
      if (signal?.aborted) throw abortReason(signal)
      this.#send({ t: 'synth', id, ...call })
      for (;;) {
        while (queue.length === 0) await new Promise<void>((r) => (wake = r))
        const m = queue.shift()!
        if (m instanceof Error || !('t' in m)) throw m
        if (m.t === 'chunk') yield fromTransfer(m.audio)
        else if (m.t === 'done') return void (finished = true)
        else if (m.t === 'failed') {
          finished = true
          throw new SpeechError('engine_failed', `[neural] synthesis failed: ${m.message}`)
        }
      }
    } finally {
      signal?.removeEventListener('abort', onAbort)
      const settled = queue.some((m) => !(m instanceof Error) && (m.t === 'done' || m.t === 'failed'))
      if (!finished && !settled && this.alive) {
        // Stop the runtime at its next sentence and wait for it, so the process is free when released.
        this.#send({ t: 'cancel', id })
        await new Promise<void>((resolve) => {
          this.#calls.set(id, { push: (m) => (m.t === 'done' || m.t === 'failed') && resolve(), fail: () => resolve() })
        })
      }
      this.#calls.delete(id)
    }
  }

  /** Fails with why the process ended, if it did. */
  assertAlive(): void {
    if (this.#exitReason) throw new SpeechError('engine_failed', `[neural] ${this.#exitReason}`)
  }

  #send(m: ToHost): void {
    this.assertAlive()
    this.#child.send(m)
  }

  terminate(): void {
    this.#stopped = true
    if (this.alive) this.#child.kill('SIGKILL')
  }
}

const lastLine = (s: string) => s.trim().split('\n').filter(Boolean).slice(-1)[0]!.slice(0, 300)
