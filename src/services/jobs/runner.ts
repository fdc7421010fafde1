import type { Db } from '../../store/db/database.js'
import { createJobRepository, type JobRepository } from '../../store/db/repositories/jobs.js'

export interface JobRunnerOptions {
  readonly jobs: JobRepository
  /** The queue this runner serves, e.g. `train`. */
  readonly kind: string
  /** This node's name in leases; unique among live nodes. */
  readonly owner: string
  /**
   * Runs one job. Resolve: done. Throw: tried again after a backoff, until `maxAttempts`. On `signal` abort
   * (shutdown, or the lease was lost) stop soon; the job is then left for another node.
   */
  readonly handler: (subject: string, attempt: number, signal: AbortSignal) => Promise<void>
  /** The last attempt failed: record why (the job is dropped after this). */
  readonly onGiveUp: (subject: string, err: unknown) => Promise<void>
  readonly onError?: (err: unknown, subject: string) => void
  readonly concurrency?: number
  /** A node that does not renew its lease for this long is presumed dead. Default 30 s. */
  readonly leaseMs?: number
  /** How often an idle node looks for work (a local `add` wakes it at once). Default 1 s. */
  readonly pollMs?: number
  readonly maxAttempts?: number
  /** First retry delay; doubles with each attempt. Default 5 s. */
  readonly backoffMs?: number
}

export interface JobRunner {
  /** Queues a job (once per subject while it is queued or running); this node runs it if started. */
  add(subject: string): Promise<void>
  /**
   * Queues a job inside the caller's transaction `trx`, so it exists exactly when what it works on does; call
   * `wake()` after the commit for this node to look at once (otherwise the next poll finds it).
   */
  addIn(trx: Db, subject: string): Promise<void>
  wake(): void
  /** Starts taking jobs. Until then (a CLI command opening the database) this node only queues them. */
  start(): void
  /** Resolves when no job of this kind is queued or running (on any node). */
  idle(): Promise<void>
  /** Stops claiming, aborts running jobs, hands them back, and waits up to `timeoutMs` for them. */
  close(timeoutMs: number): Promise<void>
}

class Shutdown extends Error {}

/**
 * A job queue in the database, shared by every node on it: nodes poll for due jobs, take one with a lease,
 * renew the lease while it runs, and delete it when done. A node that dies stops renewing, its lease runs
 * out, and another node takes the job (a new attempt). With SQLite the same code runs on the one node.
 */
export function createJobRunner(options: JobRunnerOptions): JobRunner {
  const { jobs, kind, owner } = options
  const concurrency = Math.max(1, options.concurrency ?? 1)
  const leaseMs = options.leaseMs ?? 30_000
  const maxAttempts = options.maxAttempts ?? 3
  const backoffMs = options.backoffMs ?? 5_000
  const at = (ms: number) => new Date(Date.now() + ms).toISOString()
  const running = new Map<string, Promise<void>>()
  const controllers = new Set<AbortController>()
  const waiters: (() => void)[] = []
  let closed = false
  let started = false
  let pumping = false
  let poll: NodeJS.Timeout | undefined

  const pump = async (): Promise<void> => {
    if (pumping || closed || !started) return
    pumping = true
    try {
      while (!closed && running.size < concurrency) {
        const job = await jobs.claim(kind, owner, at(0), at(leaseMs))
        if (!job) break
        running.set(job.id, run(job.id, job.subject, job.attempt).finally(() => {
          running.delete(job.id)
          void pump()
        }))
      }
    } catch (err) {
      options.onError?.(err, '(claiming a job)')
    } finally {
      pumping = false
    }
    await checkIdle()
  }

  async function run(id: string, subject: string, attempt: number): Promise<void> {
    const controller = new AbortController()
    controllers.add(controller)
    const heartbeat = setInterval(() => {
      jobs.renew(id, owner, at(leaseMs)).then(
        (held) => held || controller.abort(new Error(`[jobs] lease on ${id} lost`)),
        (err) => options.onError?.(err, subject),
      )
    }, Math.max(50, leaseMs / 3))
    try {
      await options.handler(subject, attempt, controller.signal)
      await jobs.finish(id, owner)
    } catch (err) {
      if (controller.signal.reason instanceof Shutdown) return void (await jobs.release(id, owner).catch(() => {}))
      if (controller.signal.aborted) return // lease lost: another node has it now
      options.onError?.(err, subject)
      if (attempt >= maxAttempts) {
        await options.onGiveUp(subject, err).catch((e) => options.onError?.(e, subject))
        await jobs.finish(id, owner)
      } else {
        await jobs.retry(id, owner, at(backoffMs * 2 ** (attempt - 1)), String((err as Error)?.message ?? err))
      }
    } finally {
      clearInterval(heartbeat)
      controllers.delete(controller)
    }
  }

  async function checkIdle(): Promise<void> {
    if (waiters.length === 0 || running.size > 0) return
    if ((await jobs.count(kind).catch(() => 1)) === 0) for (const w of waiters.splice(0)) w()
  }

  return {
    start() {
      if (started || closed) return
      started = true
      poll = setInterval(() => void pump(), options.pollMs ?? 1_000)
      poll.unref()
      void pump()
    },
    async add(subject) {
      if (closed) return
      await jobs.add(kind, subject, at(0))
      void pump()
    },
    addIn: (trx, subject) => createJobRepository(trx).add(kind, subject, at(0)),
    wake: () => void pump(),
    idle() {
      const done = new Promise<void>((resolve) => waiters.push(resolve))
      void checkIdle()
      return done
    },
    async close(timeoutMs) {
      closed = true
      clearInterval(poll)
      for (const c of controllers) c.abort(new Shutdown('[jobs] shutting down'))
      let timer: NodeJS.Timeout | undefined
      const gaveUp = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)))
      await Promise.race([Promise.allSettled(running.values()), gaveUp])
      clearTimeout(timer)
    },
  }
}
