/**
 * How far ahead of its listener a stream must be before its work may wait: the audio it has already sent
 * covers network jitter and the wait itself.
 */
export const AHEAD_MARGIN_MS = 1000

export interface FirstAudioTicket {
  /** The stream's first audio has left (or it ended); it no longer holds others back. */
  done(): void
}

/**
 * First audio first, on the server's own CPU. The engines already serve the earliest deadline first; this does
 * the same for the work on this thread (DSP, levelling, resampling, encoding): a stream that is well ahead of
 * its listener pauses while another request still waits for its first audio, instead of taking CPU time from
 * the engine processes that are producing that audio. On a 2-core machine with 8 requests arriving together,
 * the engine processes otherwise share the cores with the encoding of audio nobody needs yet.
 */
export class FirstAudioPriority {
  #waiting = 0
  readonly #paused = new Set<() => void>()

  /** A stream that will need its first audio by `dueAt` (`performance.now()` ms) starts. */
  begin(dueAt: number): FirstAudioTicket {
    // A live utterance whose listener still has audio to play is not urgent; it does not hold others back.
    if (dueAt - performance.now() > AHEAD_MARGIN_MS) return { done: () => {} }
    this.#waiting++
    let open = true
    return {
      done: () => {
        if (!open) return
        open = false
        if (--this.#waiting === 0) for (const wake of [...this.#paused]) wake()
      },
    }
  }

  /**
   * Waits while other streams wait for their first audio, at most until `latest` (`performance.now()` ms,
   * the latest moment this stream's listener can do without its next audio). Resolves at once when nobody
   * waits; `undefined` then, so the caller does not give up its turn for nothing.
   */
  defer(latest: number, signal?: AbortSignal): Promise<void> | undefined {
    if (this.#waiting === 0) return undefined
    const ms = latest - performance.now()
    if (ms <= 0) return undefined
    return new Promise((resolve) => {
      const wake = (): void => {
        clearTimeout(timer)
        signal?.removeEventListener('abort', wake)
        this.#paused.delete(wake)
        resolve()
      }
      const timer = setTimeout(wake, ms)
      signal?.addEventListener('abort', wake, { once: true })
      this.#paused.add(wake)
    })
  }

  /** Streams waiting for their first audio (for tests and diagnostics). */
  get waiting(): number {
    return this.#waiting
  }
}
