import { abortReason } from '../abort.js'

export interface LineOptions {
  readonly signal?: AbortSignal
  /** Longest wait, ms; absent means no deadline. */
  readonly waitMs?: number
  /** The error to reject with when the wait runs out. */
  timedOut(): Error
}

/**
 * Joins `line` with the entry `join` makes and waits for the line's owner to call the `turn` it was handed.
 * `turn` leaves the line and resolves with `take()`, called at once so the owner's counts change in the same
 * tick as its decision. A wait that runs out or whose signal aborts leaves the line and rejects, so a client
 * that went away never holds a place.
 */
export function waitInLine<E, T>(line: E[], join: (turn: () => void) => E, take: () => T, options: LineOptions): Promise<T> {
  const { signal, waitMs } = options
  if (signal?.aborted) return Promise.reject(abortReason(signal))
  return new Promise<T>((resolve, reject) => {
    const leave = () => {
      clearTimeout(timer)
      signal?.removeEventListener('abort', onAbort)
      const i = line.indexOf(entry)
      if (i >= 0) line.splice(i, 1)
    }
    const onAbort = () => {
      leave()
      reject(abortReason(signal!))
    }
    const timer = waitMs === undefined ? undefined : setTimeout(() => {
      leave()
      reject(options.timedOut())
    }, waitMs)
    const entry = join(() => {
      leave()
      resolve(take())
    })
    signal?.addEventListener('abort', onAbort, { once: true })
    line.push(entry)
  })
}
