import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { SpeechError } from '../../../errors.js'
import { parseWav } from '../wav.js'
import { FestivalOutput, type FestivalEvent, type FestivalWord } from './protocol.js'
import { FESTIVAL_INIT, sayCommand } from './scheme.js'

export interface FestivalUtterance {
  readonly samples: Float32Array
  readonly sampleRate: number
  readonly words: readonly FestivalWord[]
}

interface Pending {
  readonly id: string
  readonly resolve: (u: FestivalUtterance) => void
  readonly reject: (err: unknown) => void
  words: FestivalWord[]
  wave?: Uint8Array
}

const START_TIMEOUT_MS = 20_000
const INSTALL_HINT = 'install the Debian packages festival and festvox-us-slt-hts'

/**
 * festival's Lisp heap, in cells. The default (10 M) is touched in full at start: 325 MB resident per process,
 * one process per core. 3 M is 128 MB. Measured with the slt voice, a 1 M heap still speaks the worst
 * 300-character pieces (`split-sentences.ts` cuts longer text): 300 digits (902 segments), 150 one-letter
 * words; 2 M ran out of storage only past ~2,000 characters in one piece. Speed is unchanged (15 long
 * sentences: 5.5–5.7 s at every size).
 */
const HEAP_CELLS = 3_000_000
/**
 * One long-lived `festival --pipe` with the slt HTS voice loaded. Requests are answered in order; several
 * may be outstanding. If the process dies, every outstanding request fails with `engine_failed`.
 */
export class FestivalProcess {
  readonly #child: ChildProcessWithoutNullStreams
  readonly #output = new FestivalOutput()
  readonly #pending: Pending[] = []
  readonly #exitListeners: (() => void)[] = []
  #stderr = ''
  #exited = false
  #exitReason = ''
  #nextId = 1
  #onReady?: (event: FestivalEvent) => void

  private constructor(child: ChildProcessWithoutNullStreams) {
    this.#child = child
    child.stdout.on('data', (data: Buffer) => this.#onData(data))
    child.stderr.on('data', (data: Buffer) => {
      this.#stderr = (this.#stderr + data.toString('utf8')).slice(-2000)
    })
    child.stdin.on('error', () => {}) // EPIPE after a crash; reported through 'exit'
    child.on('exit', (code, signal) => this.#onExit(code, signal))
  }

  static start(): Promise<FestivalProcess> {
    return new Promise((resolve, reject) => {
      const args = ['-oL', 'festival', '--heap', String(HEAP_CELLS), '--pipe']
      const child = spawn('stdbuf', args, { stdio: ['pipe', 'pipe', 'pipe'] })
      const proc = new FestivalProcess(child)
      const fail = (why: string): void => {
        clearTimeout(timer)
        proc.kill()
        reject(new SpeechError('unavailable', `[festival] could not start festival (${why}); ${INSTALL_HINT}`))
      }
      const timer = setTimeout(() => fail('no answer within 20 s'), START_TIMEOUT_MS)
      child.on('error', (err) => fail(err.message))
      proc.#exitListeners.push(() => fail(`exited: ${proc.#stderr.trim().slice(-300) || 'no output'}`))
      proc.#onReady = (event) => {
        if (event.type === 'no-voice') return fail('the voice voice_cmu_us_slt_arctic_hts did not load')
        clearTimeout(timer)
        proc.#exitListeners.length = 0
        resolve(proc)
      }
      child.stdin.write(FESTIVAL_INIT)
    })
  }

  get pid(): number {
    return this.#child.pid ?? -1
  }

  get alive(): boolean {
    return !this.#exited
  }

  /** Requests sent and not yet answered. */
  get pending(): number {
    return this.#pending.length
  }

  onExit(listener: () => void): void {
    this.#exitListeners.push(listener)
  }

  say(text: string, rate: number): Promise<FestivalUtterance> {
    if (this.#exited) return Promise.reject(this.#deathError())
    const id = `r${this.#nextId++}`
    return new Promise((resolve, reject) => {
      this.#pending.push({ id, resolve, reject, words: [] })
      this.#child.stdin.write(sayCommand(id, text, rate))
    })
  }

  kill(): void {
    if (!this.#exited) this.#child.kill('SIGKILL')
  }

  #onData(data: Buffer): void {
    for (const event of this.#output.push(data)) {
      if (event.type === 'ready' || event.type === 'no-voice') {
        this.#onReady?.(event)
        continue
      }
      const head = this.#pending[0]
      if (!head) continue
      if (event.type === 'word') head.words.push(event.word)
      else if (event.type === 'wave') head.wave = event.bytes
      else if (event.id !== head.id) {
        this.#fail(new SpeechError('engine_failed', `[festival] answer ${event.id} arrived for request ${head.id}`))
      } else {
        this.#pending.shift()
        this.#settle(head, event.type === 'ok')
      }
    }
  }

  #settle(p: Pending, ok: boolean): void {
    if (!ok || !p.wave) {
      const why = this.#stderr.trim().split('\n').slice(-2).join(' ')
      p.reject(new SpeechError('engine_failed', `[festival] synthesis failed${why ? `: ${why}` : ''}`))
      return
    }
    try {
      const { samples, sampleRate } = parseWav(p.wave, 'festival')
      p.resolve({ samples, sampleRate, words: p.words })
    } catch (err) {
      p.reject(err)
    }
  }

  #fail(err: SpeechError): void {
    for (const p of this.#pending.splice(0)) p.reject(err)
    this.kill()
  }

  #deathError(): SpeechError {
    const why = this.#stderr.trim().split('\n').slice(-2).join(' ')
    return new SpeechError(
      'engine_failed',
      `[festival] process ${this.pid} died (${this.#exitReason})${why ? `: ${why}` : ''}; it is being restarted`,
    )
  }

  #onExit(code: number | null, signal: NodeJS.Signals | null): void {
    this.#exited = true
    this.#exitReason = signal ?? `exit code ${code}`
    const err = this.#deathError()
    for (const p of this.#pending.splice(0)) p.reject(err)
    for (const listener of this.#exitListeners.splice(0)) listener()
  }
}
