/** Abort plumbing shared by engines and services. */

/** What an aborted call throws: the signal's reason (a DOMException `AbortError` unless the caller chose one). */
export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError')
}

/**
 * Settles like `promise`, or rejects with the abort reason as soon as `signal` aborts. The work behind
 * `promise` is not stopped; the caller does that (kill, terminate, flag) in its `finally`.
 */
export function raceAbort<T>(promise: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return promise
  if (signal.aborted) {
    promise.catch(() => {})
    return Promise.reject(abortReason(signal))
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => {
      promise.catch(() => {})
      reject(abortReason(signal))
    }
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort)
        resolve(value)
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort)
        reject(err)
      },
    )
  })
}

/**
 * Aborts `child` (with the same reason) when `parent` aborts; returns the undo, which the child's owner calls
 * when the child's work ends. For a short-lived controller under a long-lived signal (an utterance under its
 * socket): unlike `AbortSignal.any`, nothing of the child stays reachable from the parent once undone.
 */
export function followAbort(parent: AbortSignal, child: AbortController): () => void {
  if (parent.aborted) {
    child.abort(parent.reason)
    return () => {}
  }
  const onAbort = () => child.abort(parent.reason)
  parent.addEventListener('abort', onAbort, { once: true })
  return () => parent.removeEventListener('abort', onAbort)
}
