import { SpeechError } from '../../errors.js'
import { ResourcePool, type PoolLoad, type PoolOptions } from '../tts/pool.js'

export interface OnDemandPoolOptions<T> extends PoolOptions<T> {
  /** Seconds without work after which every resource is stopped (0: never); the next call starts them again. */
  readonly idleSec: number
  /** Told when the resources were stopped for being idle (for the log). */
  readonly onIdleStop?: (stopped: number) => void
}

const EMPTY_LOAD: PoolLoad = { size: 0, busy: 0, queued: 0, busySec: 0 }

/**
 * A `ResourcePool` started by its first call and, with `idleSec`, stopped again after that long without
 * work: the neural runtimes' processes each hold their models (hundreds of MB for Kokoro or Whisper), which
 * a machine that speaks a few times a day should get back. A call after that starts them and loads the
 * models again, so it waits for both.
 */
export class OnDemandPool<T> {
  readonly #options: OnDemandPoolOptions<T>
  #pool: Promise<ResourcePool<T>> | undefined
  #started: ResourcePool<T> | undefined
  /** The pool each handed-out resource came from: one stopped for idleness may still have a late release. */
  readonly #owner = new Map<T, ResourcePool<T>>()
  #idleTimer: NodeJS.Timeout | undefined
  #busySecBefore = 0
  #closed = false
  /** Pools replaced by `recycle`, closed when their last call is done. */
  readonly #retired = new Set<ResourcePool<T>>()

  constructor(options: OnDemandPoolOptions<T>) {
    this.#options = options
  }

  /** A resource, starting the pool if it is not running. */
  async acquire(signal?: AbortSignal, deadline?: number): Promise<T> {
    if (this.#closed) throw new SpeechError('unavailable', `[${this.#options.name}] the engine is closed`)
    clearTimeout(this.#idleTimer)
    for (;;) {
      const starting = (this.#pool ??= this.#start())
      const pool = await starting
      // Recycled while it started: the next pool is for this call (after `close`, acquire says closed).
      if (this.#pool !== starting && !this.#closed) continue
      const item = await pool.acquire(signal, deadline)
      this.#owner.set(item, pool)
      return item
    }
  }

  release(item: T): void {
    const pool = this.#owner.get(item)
    this.#owner.delete(item)
    pool?.release(item)
    this.#closeIfRetiredAndIdle(pool)
    this.#armIdleStop()
  }

  /** A resource that broke (its process died): stopped and replaced. */
  discard(item: T): void {
    const pool = this.#owner.get(item) ?? this.#started
    this.#owner.delete(item)
    pool?.discard(item)
    this.#closeIfRetiredAndIdle(pool)
    this.#armIdleStop()
  }

  /**
   * New calls get new resources; the current ones stop once the calls holding them are done. For when what
   * the resources loaded is out of date (a model package replaced or removed).
   */
  recycle(): void {
    clearTimeout(this.#idleTimer)
    const pool = this.#started
    // A pool still starting is closed once started (`#start`), and its callers move on to a new one.
    this.#pool = undefined
    this.#started = undefined
    if (!pool) return
    this.#busySecBefore += pool.load.busySec
    this.#retired.add(pool)
    this.#closeIfRetiredAndIdle(pool)
  }

  get saturated(): boolean {
    return this.#started?.saturated ?? false
  }

  get load(): PoolLoad {
    const load = this.#started?.load ?? EMPTY_LOAD
    return { ...load, busySec: this.#busySecBefore + load.busySec }
  }

  async close(): Promise<void> {
    this.#closed = true
    clearTimeout(this.#idleTimer)
    const pool = await this.#pool?.catch(() => undefined)
    this.#pool = undefined
    this.#started = undefined
    await Promise.all([pool?.close(), ...[...this.#retired].map((p) => p.close())])
    this.#retired.clear()
  }

  #start(): Promise<ResourcePool<T>> {
    const starting = ResourcePool.start<T>(this.#options)
    starting.then((pool) => {
      if (this.#pool === starting) this.#started = pool
      // Recycled or closed while it started: nothing will use it.
      else void pool.close()
    }, () => {
      // A pool that could not start is not kept: the next call tries again (its error reached this one).
      if (this.#pool === starting) this.#pool = undefined
    })
    return starting
  }

  #closeIfRetiredAndIdle(pool: ResourcePool<T> | undefined): void {
    if (!pool || !this.#retired.has(pool) || pool.load.busy > 0) return
    this.#retired.delete(pool)
    void pool.close()
  }

  #armIdleStop(): void {
    if (this.#closed || this.#options.idleSec <= 0 || !this.#idle()) return
    clearTimeout(this.#idleTimer)
    this.#idleTimer = setTimeout(() => this.#stopIdle(), this.#options.idleSec * 1000)
    // Waiting to stop idle processes is no reason to keep the server's process alive.
    this.#idleTimer.unref()
  }

  #idle(): boolean {
    const load = this.#started?.load
    return load !== undefined && load.busy === 0 && load.queued === 0
  }

  #stopIdle(): void {
    const pool = this.#started
    // Work arrived since the timer was set (each call clears it, but one may be starting the pool).
    if (!pool || !this.#idle() || this.#closed) return
    this.#busySecBefore += pool.load.busySec
    const stopped = pool.load.size
    this.#pool = undefined
    this.#started = undefined
    void pool.close()
    this.#options.onIdleStop?.(stopped)
  }
}
