/**
 * Orders synthesis across live sockets by deadline: when each client will run out of audio. A client that
 * is waiting (it just flushed) has a deadline of now and goes first; a continuation whose client still has
 * a second of audio to play can wait that long. With many sockets this is what keeps the first audio after
 * a flush fast: without it, engine processes serve units first come, first served, and a short first phrase
 * waits behind other sockets' long sentences.
 *
 * A slot is a turn on the engines (`slots` ≈ engine processes). Holders give their slot back at every
 * chunk and whenever they wait for a slow reader, so no one holds it for long.
 */
export class LiveScheduler {
  private readonly slots: number
  private busy = 0
  private readonly waiting: { deadline: number; seq: number; grant: () => void }[] = []
  private seq = 0

  constructor(slots: number) {
    this.slots = Math.max(1, slots)
  }

  /** Resolves when a slot is this caller's; rejects if `signal` aborts first. Call `release()` after. */
  acquire(deadline: number, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.reject(signal.reason)
    if (this.busy < this.slots && this.waiting.length === 0) {
      this.busy++
      return Promise.resolve()
    }
    return new Promise((resolve, reject) => {
      const entry = {
        deadline,
        seq: this.seq++,
        grant: () => {
          signal.removeEventListener('abort', onAbort)
          resolve()
        },
      }
      const onAbort = () => {
        const i = this.waiting.indexOf(entry)
        if (i >= 0) this.waiting.splice(i, 1)
        reject(signal.reason)
      }
      signal.addEventListener('abort', onAbort, { once: true })
      // Earliest deadline first; equal deadlines in arrival order.
      let at = this.waiting.length
      while (at > 0 && (this.waiting[at - 1]!.deadline > deadline)) at--
      this.waiting.splice(at, 0, entry)
      this.pump()
    })
  }

  release(): void {
    this.busy = Math.max(0, this.busy - 1)
    this.pump()
  }

  /** Jobs waiting for a slot (for tests and diagnostics). */
  get queued(): number {
    return this.waiting.length
  }

  private pump(): void {
    while (this.busy < this.slots && this.waiting.length > 0) {
      this.busy++
      this.waiting.shift()!.grant()
    }
  }
}
