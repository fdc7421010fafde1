import { SpeechError } from '../../errors.js'
import { abortReason } from '../../abort.js'

export interface PoolOptions<T> {
  /** Component name for messages, e.g. `festival`. */
  readonly name: string
  readonly size: number
  create(): Promise<T>
  /** Stops the resource at once (kill, terminate). Must not throw. */
  destroy(item: T): void
}

/** How busy a pool is: for metrics, health and the admission control's cost estimate. */
export interface PoolLoad {
  /** Live resources. */
  readonly size: number
  /** Resources handed out now. */
  readonly busy: number
  /** Calls waiting for a resource. */
  readonly queued: number
  /** Seconds resources have been held by calls since the pool started, counting holds still under way. */
  readonly busySec: number
}

interface Waiter<T> {
  readonly deadline: number
  resolve(item: T): void
  reject(err: unknown): void
}

/**
 * A fixed-size set of workers or processes. A resource that broke or was interrupted is discarded and
 * replaced in the background, so the pool keeps its size; failed replacements are retried with backoff.
 */
export class ResourcePool<T> {
  readonly #options: PoolOptions<T>
  readonly #idle: T[] = []
  readonly #live = new Set<T>()
  readonly #waiters: Waiter<T>[] = []
  /** When each handed-out resource was taken (`performance.now()`), for `busySec`. */
  readonly #heldSince = new Map<T, number>()
  #heldMs = 0
  #starting = 0
  #failures = 0
  #lastError: unknown
  #closed = false

  private constructor(options: PoolOptions<T>) {
    this.#options = options
  }

  /** Creates all resources; rejects (after stopping the ones that started) if any fails to start. */
  static async start<T>(options: PoolOptions<T>): Promise<ResourcePool<T>> {
    const pool = new ResourcePool(options)
    const results = await Promise.allSettled(Array.from({ length: Math.max(1, options.size) }, () => options.create()))
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected')
    for (const r of results) if (r.status === 'fulfilled') pool.#add(r.value)
    if (failed) {
      await pool.close()
      throw failed.reason
    }
    return pool
  }

  /** Every live resource, idle or busy (for tests and diagnostics). */
  get items(): readonly T[] {
    return [...this.#live]
  }

  /** No resource is idle: a new `acquire` would wait. */
  get saturated(): boolean {
    return this.#idle.length === 0
  }

  get busyItems(): readonly T[] {
    return [...this.#live].filter((item) => !this.#idle.includes(item))
  }

  get load(): PoolLoad {
    const now = performance.now()
    let heldMs = this.#heldMs
    for (const since of this.#heldSince.values()) heldMs += now - since
    return { size: this.#live.size, busy: this.#live.size - this.#idle.length, queued: this.#waiters.length, busySec: heldMs / 1000 }
  }

  /**
   * An idle resource, or the next one released. Waiters are served earliest `deadline` first (a
   * `performance.now()` time, default now): a request's first audio comes before the continuation of
   * requests whose listeners still have seconds of audio buffered.
   */
  acquire(signal?: AbortSignal, deadline = performance.now()): Promise<T> {
    if (this.#closed) return Promise.reject(this.#closedError())
    if (signal?.aborted) return Promise.reject(abortReason(signal))
    const item = this.#idle.pop()
    if (item !== undefined) return Promise.resolve(this.#take(item))
    if (this.#live.size === 0 && (this.#starting === 0 || this.#failures > 0)) {
      return Promise.reject(this.#brokenError())
    }
    return new Promise<T>((resolve, reject) => {
      const onAbort = (): void => {
        const i = this.#waiters.indexOf(waiter)
        if (i >= 0) this.#waiters.splice(i, 1)
        reject(abortReason(signal!))
      }
      const waiter: Waiter<T> = {
        deadline,
        resolve: (value) => {
          signal?.removeEventListener('abort', onAbort)
          resolve(value)
        },
        reject: (err) => {
          signal?.removeEventListener('abort', onAbort)
          reject(err)
        },
      }
      signal?.addEventListener('abort', onAbort, { once: true })
      const later = this.#waiters.findIndex((w) => w.deadline > deadline)
      this.#waiters.splice(later < 0 ? this.#waiters.length : later, 0, waiter)
    })
  }

  /** Returns a healthy resource after a finished request. */
  release(item: T): void {
    if (!this.#live.has(item)) return
    this.#settle(item)
    if (this.#closed) return this.discard(item)
    const waiter = this.#waiters.shift()
    if (waiter) waiter.resolve(this.#take(item))
    else this.#idle.push(item)
  }

  /** Stops a broken or interrupted resource and starts a replacement. */
  discard(item: T): void {
    this.#settle(item)
    const wasLive = this.#live.delete(item)
    const i = this.#idle.indexOf(item)
    if (i >= 0) this.#idle.splice(i, 1)
    this.#options.destroy(item)
    if (wasLive && !this.#closed) this.#replace(0)
  }

  async close(): Promise<void> {
    this.#closed = true
    for (const waiter of this.#waiters.splice(0)) waiter.reject(this.#closedError())
    for (const item of [...this.#live]) {
      this.#live.delete(item)
      this.#options.destroy(item)
    }
    this.#idle.length = 0
  }

  #take(item: T): T {
    this.#heldSince.set(item, performance.now())
    return item
  }

  #settle(item: T): void {
    const since = this.#heldSince.get(item)
    if (since === undefined) return
    this.#heldSince.delete(item)
    this.#heldMs += performance.now() - since
  }

  #add(item: T): void {
    this.#live.add(item)
    this.release(item)
  }

  #replace(delayMs: number): void {
    this.#starting++
    const run = async (): Promise<void> => {
      try {
        const item = await this.#options.create()
        this.#starting--
        this.#failures = 0
        if (this.#closed) this.#options.destroy(item)
        else this.#add(item)
      } catch (err) {
        this.#starting--
        this.#failures++
        this.#lastError = err
        if (this.#closed) return
        if (this.#live.size === 0 && this.#starting === 0) {
          for (const waiter of this.#waiters.splice(0)) waiter.reject(this.#brokenError())
        }
        this.#replace(Math.min(30_000, 250 * 2 ** this.#failures))
      }
    }
    if (delayMs === 0) void run()
    else setTimeout(() => void run(), delayMs).unref()
  }

  #closedError(): SpeechError {
    return new SpeechError('unavailable', `[${this.#options.name}] the engine is closed`)
  }

  #brokenError(): SpeechError {
    const why = this.#lastError instanceof Error ? `: ${this.#lastError.message}` : ''
    return new SpeechError('engine_failed', `[${this.#options.name}] no engine process could be started${why}`, {
      cause: this.#lastError,
    })
  }
}
