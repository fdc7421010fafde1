import { abortReason } from '../../abort.js'
import { SpeechError } from '../../errors.js'
import { type Turn, waitInLine } from '../waiting-line.js'

/**
 * A first-come, first-served limit on how many tasks run at once. Tasks beyond the limit wait their turn, in
 * a line of at most `queueLength` for at most `waitMs`; beyond either they are turned away with a 503
 * `engine_busy` whose `retryAfterSec` is how long a task has recently run (so a load balancer or the client
 * tries again later or elsewhere). A waiter whose signal aborts leaves the queue at once and rejects with the
 * abort reason, so a client that went away never holds a place.
 */
export interface ConcurrencyGate {
  /** Runs `task` once fewer than `limit` tasks are running; the slot is freed when it settles. */
  run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T>
  /**
   * Takes a slot for work that is not one promise (a live turn, held while its decoder is): resolves with the
   * function that gives it back (calling it twice is harmless).
   */
  hold(signal?: AbortSignal): Promise<() => void>
  /** Tasks running now. */
  readonly active: number
  /** Tasks waiting for a slot. */
  readonly waiting: number
  readonly limit: number
}

export interface GateOptions {
  /** Tasks that may wait; beyond it, turned away at once. Default: unbounded. */
  readonly queueLength?: number
  /** Longest wait for a slot, ms. Default: no deadline. */
  readonly waitMs?: number
  /** Names what runs, in the 503's message ("speech recognition"). */
  readonly what?: string
  /** A task was turned away (metrics). */
  readonly onReject?: () => void
}

/** Bounds for the `Retry-After` advice, seconds. */
const RETRY_MIN_SEC = 1
const RETRY_MAX_SEC = 60

export function createConcurrencyGate(limit: number, options: GateOptions = {}): ConcurrencyGate {
  if (!Number.isInteger(limit) || limit < 1) {
    const msg = `[asr] the concurrency limit must be a whole number ≥ 1, got ${limit}`
    throw new SpeechError('internal_error', msg)
  }
  const queue: Turn[] = []
  let active = 0
  // Smoothed seconds a task holds its slot: how soon one is likely to free up.
  let holdSec = RETRY_MIN_SEC
  const queueLength = options.queueLength ?? Infinity
  const what = options.what ?? 'this work'

  const busy = (why: string): SpeechError => {
    options.onReject?.()
    const retryAfterSec = Math.min(RETRY_MAX_SEC, Math.max(RETRY_MIN_SEC, Math.ceil(holdSec)))
    const msg = `The server is at capacity for ${what} (${active} of ${limit} running, ${why}); retry in ${retryAfterSec} s, or send it to another instance`
    return new SpeechError('engine_busy', msg, { retryAfterSec })
  }

  const release = () => {
    active--
    const next = queue.shift()
    next?.()
  }

  /** Resolves once a slot is held (counted in `active`), or rejects on abort while still queued. */
  const acquire = (signal?: AbortSignal): Promise<void> => {
    if (signal?.aborted) return Promise.reject(abortReason(signal))
    if (active < limit && queue.length === 0) {
      active++
      return Promise.resolve()
    }
    if (queue.length >= queueLength) return Promise.reject(busy(`${queue.length} waiting`))
    return waitInLine(queue, () => {
      active++
    }, {
      ...(signal && { signal }),
      ...(options.waitMs !== undefined && { waitMs: options.waitMs }),
      timedOut: () => busy(`no slot within ${options.waitMs! / 1000} s`),
    })
  }

  return {
    async run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
      await acquire(signal)
      const started = performance.now()
      try {
        return await task()
      } finally {
        holdSec += 0.2 * ((performance.now() - started) / 1000 - holdSec)
        release()
      }
    },
    async hold(signal?: AbortSignal): Promise<() => void> {
      await acquire(signal)
      const started = performance.now()
      let held = true
      return () => {
        if (!held) return
        held = false
        holdSec += 0.2 * ((performance.now() - started) / 1000 - holdSec)
        release()
      }
    },
    get active() {
      return active
    },
    get waiting() {
      return queue.length
    },
    limit,
  }
}
