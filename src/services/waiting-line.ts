import { abortReason } from '../abort.js'

export interface LineOptions {
  readonly signal?: AbortSignal
  /** Longest wait, ms; absent means no deadline. */
  readonly waitMs?: number
  /** The error to reject with when the wait runs out. */
  timedOut(): Error
  /**
   * Asked when the wait runs out, before `timedOut`: true takes the place after all (resolves with `take()`),
   * for an owner that serves some waits rather than refuse them once they have waited long enough.
   */
  servedAtDeadline?(): boolean
  /**
   * When the wait runs out and `servedAtDeadline` declines: the place stays in the line this much longer (ms),
   * `overdue` is called, and `servedAtDeadline` is asked once more when it ends, before `timedOut`.
   */
  readonly graceMs?: number
  overdue?(): void
}

/** A place in a line: its owner calls it when the place's turn comes. */
export type Turn = () => void

/**
 * Joins `line` and waits for the line's owner to call this place's `Turn` (taken from the front). The turn
 * resolves with `take()`, called at once so the owner's counts change in the same tick as its decision. A wait
 * that runs out or whose signal aborts leaves the line and rejects, so a client that went away never holds a
 * place.
 */
export function waitInLine<T>(line: Turn[], take: () => T, options: LineOptions): Promise<T> {
  const { signal, waitMs } = options
  if (signal?.aborted) return Promise.reject(abortReason(signal))
  return new Promise<T>((resolve, reject) => {
    const leave = () => {
      clearTimeout(timer)
      signal?.removeEventListener('abort', onAbort)
      const i = line.indexOf(turn)
      if (i >= 0) line.splice(i, 1)
    }
    const onAbort = () => {
      leave()
      reject(abortReason(signal!))
    }
    const expire = (graceLeft: boolean) => {
      if (options.servedAtDeadline?.()) {
        leave()
        resolve(take())
      } else if (graceLeft && options.graceMs) {
        timer = setTimeout(() => expire(false), options.graceMs)
        options.overdue?.()
      } else {
        leave()
        reject(options.timedOut())
      }
    }
    let timer = waitMs === undefined ? undefined : setTimeout(() => expire(true), waitMs)
    const turn: Turn = () => {
      leave()
      resolve(take())
    }
    signal?.addEventListener('abort', onAbort, { once: true })
    line.push(turn)
  })
}
