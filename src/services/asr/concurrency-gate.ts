import { abortReason } from '../../abort.js'
import { SpeechError } from '../../errors.js'

/**
 * A first-come, first-served limit on how many tasks run at once. Tasks beyond the limit wait their turn
 * instead of failing; a waiter whose signal aborts leaves the queue at once and rejects with the abort
 * reason, so a client that went away never holds a place.
 */
export interface ConcurrencyGate {
  /** Runs `task` once fewer than `limit` tasks are running; the slot is freed when it settles. */
  run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T>
  /** Tasks running now. */
  readonly active: number
  /** Tasks waiting for a slot. */
  readonly waiting: number
  readonly limit: number
}

interface Waiter {
  readonly start: () => void
}

export function createConcurrencyGate(limit: number): ConcurrencyGate {
  if (!Number.isInteger(limit) || limit < 1) {
    const msg = `[asr] the concurrency limit must be a whole number ≥ 1, got ${limit}`
    throw new SpeechError('internal_error', msg)
  }
  const queue: Waiter[] = []
  let active = 0

  const release = () => {
    active--
    const next = queue.shift()
    if (next) next.start()
  }

  /** Resolves once a slot is held (counted in `active`), or rejects on abort while still queued. */
  const acquire = (signal?: AbortSignal): Promise<void> => {
    if (signal?.aborted) return Promise.reject(abortReason(signal))
    if (active < limit && queue.length === 0) {
      active++
      return Promise.resolve()
    }
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        const i = queue.indexOf(waiter)
        if (i >= 0) queue.splice(i, 1)
        reject(abortReason(signal!))
      }
      const waiter: Waiter = {
        start: () => {
          signal?.removeEventListener('abort', onAbort)
          active++
          resolve()
        },
      }
      signal?.addEventListener('abort', onAbort, { once: true })
      queue.push(waiter)
    })
  }

  return {
    async run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
      await acquire(signal)
      try {
        return await task()
      } finally {
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
