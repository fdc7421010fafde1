import { abortReason } from '../../abort.js'
import { SpeechError } from '../../errors.js'
import type { Logger } from '../../logger.js'
import { CACHE_DIR } from '../../models/detect.js'
import type { ModelPackage } from '../../models/types.js'
import { NeuralHost } from './host.js'
import { LoadChecks, loadChecksFile, type LoadVerdict } from './load-checks.js'
import type { AsrLoadConfig, TtsLoadConfig, VadLoadConfig } from './protocol.js'

/** Where a package stands: never loaded, being loaded by its check, loaded, or refused by the runtime. */
export type CheckState = { readonly state: 'unchecked' | 'checking' | 'ready' } | { readonly state: 'broken'; readonly reason: string }

/** How to load one package: its TTS configuration (prepared once, shared with the engine), or its ASR or VAD one. */
export type LoadTarget = { readonly tts: () => Promise<TtsLoadConfig> } | { readonly asr: AsrLoadConfig } | { readonly vad: VadLoadConfig }

/** What loading a runnable package takes; `prepare` makes a TTS package's configuration (default: its own). */
export function loadTargetOf(pkg: ModelPackage, prepare: () => Promise<TtsLoadConfig> = pkg.prepare!): LoadTarget {
  if (pkg.kind === 'tts') return { tts: prepare }
  return pkg.vad ? { vad: pkg.vad } : { asr: pkg.asr! }
}

/** How long a request to a package being checked waits for the verdict before a 503 with Retry-After. */
export const CHECK_WAIT_SEC = 30

// One check process at a time in the whole server, whichever engine or models folder asked: a check loads a
// whole model (hundreds of MB, seconds of both cores for Kokoro or Whisper), and requests come first. Checks
// run in the order they were queued, except that one a request waits for goes next (`hurry`): with many
// packages found at once, a request must not wait for every check queued before its own.
const queued: (() => void)[] = []
let checking = false
function oneAtATime<T>(task: () => Promise<T>): { readonly result: Promise<T>; hurry(): void } {
  let start!: () => void
  const result = new Promise<T>((resolve, reject) => {
    start = () => {
      checking = true
      Promise.resolve().then(task).then(resolve, reject).finally(() => {
        checking = false
        startNext()
      })
    }
  })
  queued.push(start)
  startNext()
  return {
    result,
    hurry() {
      const at = queued.indexOf(start)
      if (at > 0) queued.unshift(...queued.splice(at, 1))
    },
  }
}
function startNext(): void {
  if (!checking) queued.shift()?.()
}

const key = (id: string, stamp: string) => `${id}\n${stamp}`

/**
 * Loads each package once, when it is found, in a throwaway runtime process at low priority, one at a time,
 * so a package the runtime refuses (or ends its process on) is known as broken before any request or sample
 * clip uses it. Verdicts are kept per identity of the package's files (`LoadChecks`), so a restart or
 * `parla models list` does not load an unchanged package again.
 */
export class ModelChecks {
  readonly #results: LoadChecks
  readonly #pending = new Map<string, Promise<LoadVerdict | undefined>>()
  /** Moves a queued check to the front (see `oneAtATime`). */
  readonly #hurry = new Map<string, () => void>()
  readonly #listeners: ((id: string) => void)[] = []
  readonly #closing = new AbortController()
  readonly #logger: Logger | undefined
  #running: NeuralHost | undefined

  /** `modelsDir` empty: verdicts kept in memory only. */
  constructor(modelsDir: string, logger?: Logger) {
    this.#results = new LoadChecks(modelsDir ? loadChecksFile(modelsDir, CACHE_DIR) : '')
    this.#logger = logger
  }

  /** Reads the kept verdicts again (another process may have checked packages). */
  refresh(): Promise<void> {
    return this.#results.load()
  }

  state(id: string, stamp: string | undefined): CheckState {
    const verdict = this.#results.get(id, stamp)
    if (verdict) return verdict.ok ? { state: 'ready' } : { state: 'broken', reason: verdict.reason }
    return stamp !== undefined && this.#pending.has(key(id, stamp)) ? { state: 'checking' } : { state: 'unchecked' }
  }

  /** Told the package's id whenever a check ends or a verdict is recorded. */
  onSettled(listener: (id: string) => void): void {
    this.#listeners.push(listener)
  }

  /**
   * The verdict on these files: the kept one, or a check queued now (or already queued). Undefined when the
   * checks were closed before it ran.
   */
  check(pkg: ModelPackage, stamp: string, target: LoadTarget): Promise<LoadVerdict | undefined> {
    const known = this.#results.get(pkg.id, stamp)
    if (known) return Promise.resolve(known)
    const k = key(pkg.id, stamp)
    let pending = this.#pending.get(k)
    if (!pending) {
      const queuedCheck = oneAtATime(() => this.#probe(pkg, stamp, target))
      this.#hurry.set(k, queuedCheck.hurry)
      pending = queuedCheck.result.catch((err: unknown) => {
        // The verdict could not be kept (the cache not writable): the package stays unchecked, requests load it.
        this.#logger?.warn({ err, package: pkg.id }, '[neural] could not check a model package')
        return undefined
      }).finally(() => {
        this.#pending.delete(k)
        this.#hurry.delete(k)
        this.#notify(pkg.id)
      })
      this.#pending.set(k, pending)
    }
    return pending
  }

  /**
   * For a request: waits for a check under way on these files, moved to the front if it is still queued (at
   * most `CHECK_WAIT_SEC`, then 503 with Retry-After), and returns its verdict; undefined when none is known (the request loads the files itself).
   */
  async awaitVerdict(id: string, stamp: string | undefined, signal?: AbortSignal): Promise<LoadVerdict | undefined> {
    const pending = stamp === undefined ? undefined : this.#pending.get(key(id, stamp))
    if (pending) {
      this.#hurry.get(key(id, stamp!))?.()
      let timer: NodeJS.Timeout | undefined
      let onAbort: (() => void) | undefined
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new SpeechError('unavailable',
          `[neural] model package ${id} is being checked (loaded once to see whether the runtime takes it); try again shortly`,
          { retryAfterSec: 10 })), CHECK_WAIT_SEC * 1000)
        onAbort = () => reject(abortReason(signal!))
        signal?.addEventListener('abort', onAbort, { once: true })
      })
      try {
        await Promise.race([pending, late])
      } finally {
        clearTimeout(timer)
        if (onAbort) signal?.removeEventListener('abort', onAbort)
      }
    }
    return this.#results.get(id, stamp)
  }

  /** A verdict found by serving (the package refused or ended its process again and again). */
  async record(id: string, stamp: string, verdict: LoadVerdict): Promise<void> {
    await this.#results.record(id, stamp, verdict)
    this.#notify(id)
  }

  /** Stops the check under way; queued ones end without a verdict. */
  close(): void {
    this.#closing.abort()
    this.#running?.terminate()
  }

  async #probe(pkg: ModelPackage, stamp: string, target: LoadTarget): Promise<LoadVerdict | undefined> {
    if (this.#closing.signal.aborted) return undefined
    const host = new NeuralHost({ probe: true })
    this.#running = host
    let verdict: LoadVerdict
    try {
      if ('tts' in target) {
        const config = await target.tts().catch((err: unknown) => {
          throw new Error(`could not be prepared: ${err instanceof Error ? err.message : String(err)}`)
        })
        await host.load(pkg.id, config, 1)
      } else if ('vad' in target) {
        await host.loadVad(pkg.id, target.vad)
      } else {
        await host.loadAsr(pkg.id, target.asr, 1)
      }
      verdict = { ok: true }
    } catch (err) {
      if (this.#closing.signal.aborted) return undefined
      verdict = { ok: false, reason: runtimeReason(err) }
    } finally {
      this.#running = undefined
      host.terminate()
    }
    await this.#results.record(pkg.id, stamp, verdict)
    if (verdict.ok) this.#logger?.info({ package: pkg.id }, '[neural] model package checked: the runtime loads it')
    else this.#logger?.warn({ package: pkg.id, reason: verdict.reason }, `[neural] model package broken: the runtime refused it; ${pkg.kind === 'vad' ? 'live transcription uses libfvad' : 'its voices answer 409'} until its files change`)
    return verdict
  }

  #notify(id: string): void {
    for (const listener of this.#listeners) listener(id)
  }
}

/** The runtime's own words for why it did not load a package, without Parla's prefixes. */
export function runtimeReason(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err)
  const refused = /could not load model \S+?: (.*)$/s.exec(message)
  if (refused) return refused[1]!.trim() || message
  return message.replace(/^\[neural\] the neural runtime process ended/, 'the runtime ended its process').replace(/^\[neural\] /, '')
}

const shared = new Map<string, { readonly checks: ModelChecks; users: number }>()

/** The checks of one models folder, shared by the engines that use it; `release` when done. */
export function acquireModelChecks(modelsDir: string, logger?: Logger): { readonly checks: ModelChecks; release(): void } {
  let entry = shared.get(modelsDir)
  if (!entry) {
    entry = { checks: new ModelChecks(modelsDir, logger), users: 0 }
    shared.set(modelsDir, entry)
  }
  entry.users++
  const held = entry
  let released = false
  return {
    checks: held.checks,
    release() {
      if (released) return
      released = true
      if (--held.users > 0) return
      held.checks.close()
      if (shared.get(modelsDir) === held) shared.delete(modelsDir)
    },
  }
}
