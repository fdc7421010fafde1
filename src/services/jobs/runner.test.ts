import { tmpdir } from 'node:os'
import { afterEach, describe, expect, it } from 'vitest'
import { freshPostgres } from '../../../test/support/postgres/fresh.js'
import { dialectFor, openDatabase, type Db } from '../../store/db/database.js'
import { createJobRepository } from '../../store/db/repositories/jobs.js'
import { createJobRunner, type JobRunner, type JobRunnerOptions } from './runner.js'

/** Two handles on one database, as two nodes have: separate pools on PostgreSQL, one file's connection on SQLite. */
async function twoNodes(dialect: 'sqlite' | 'postgres'): Promise<{ a: Db; b: Db; close(): Promise<void> }> {
  if (dialect === 'sqlite') {
    const db = await openDatabase(dialectFor('sqlite::memory:', tmpdir()))
    return { a: db, b: db, close: () => db.destroy() }
  }
  const database = await freshPostgres()
  const a = await openDatabase(dialectFor(database.url, tmpdir()))
  const b = await openDatabase(dialectFor(database.url, tmpdir()))
  return { a, b, close: async () => (await Promise.all([a.destroy(), b.destroy()]), await database.drop()) }
}

describe.each(['sqlite', 'postgres'] as const)('%s: database job queue', (dialect) => {
  const cleanups: (() => Promise<unknown>)[] = []
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c()
  })
  const setup = async () => {
    const nodes = await twoNodes(dialect)
    cleanups.push(() => nodes.close())
    return nodes
  }
  const runner = (db: Db, options: Partial<JobRunnerOptions> & Pick<JobRunnerOptions, 'owner' | 'handler'>): JobRunner => {
    const r = createJobRunner({ jobs: createJobRepository(db), kind: 'test', pollMs: 20, onGiveUp: async () => {}, ...options })
    cleanups.push(() => r.close(1000))
    r.start()
    return r
  }

  it('runs each job exactly once when two nodes take jobs from one queue', async () => {
    const { a, b } = await setup()
    const ran: string[] = []
    const handler = (_owner: string) => async (subject: string) => {
      ran.push(subject)
      await new Promise((r) => setTimeout(r, 5)) // let the other node race for the next one meanwhile
    }
    const subjects = Array.from({ length: 24 }, (_, i) => `s${i}`)
    // Both nodes queue every subject (as two nodes recovering at once do): each is queued once.
    const now = new Date().toISOString()
    await Promise.all(subjects.flatMap((s) => [createJobRepository(a).add('test', s, now), createJobRepository(b).add('test', s, now)]))
    const one = runner(a, { owner: 'node-a', handler: handler('a'), concurrency: 2 })
    const two = runner(b, { owner: 'node-b', handler: handler('b'), concurrency: 2 })
    await Promise.all([one.idle(), two.idle()])
    expect(ran.sort()).toEqual([...subjects].sort())
  })

  it('retries a failing job after a backoff, then gives up once with the last error', async () => {
    const { a } = await setup()
    const attempts: number[] = []
    const gaveUp: string[] = []
    const r = runner(a, {
      owner: 'node-a',
      maxAttempts: 3,
      backoffMs: 30,
      handler: async (_subject, attempt) => {
        attempts.push(attempt)
        throw new Error(`engine crashed (attempt ${attempt})`)
      },
      onGiveUp: async (subject, err) => void gaveUp.push(`${subject}: ${(err as Error).message}`),
    })
    await r.add('m1')
    await r.idle()
    expect(attempts).toEqual([1, 2, 3])
    expect(gaveUp).toEqual(['m1: engine crashed (attempt 3)'])
  })

  it('gives the job of a node that stopped renewing its lease to another node', async () => {
    const { a, b } = await setup()
    const jobs = createJobRepository(a)
    const now = new Date().toISOString()
    await jobs.add('test', 'm1', now)
    // A node took the job and died: its lease is never renewed.
    expect(await jobs.claim('test', 'dead-node', now, new Date(Date.now() + 300).toISOString())).toMatchObject({ subject: 'm1', attempt: 1 })
    const ran: [string, number][] = []
    const r = runner(b, { owner: 'node-b', leaseMs: 300, handler: async (subject, attempt) => void ran.push([subject, attempt]) })
    await r.idle()
    expect(ran).toEqual([['m1', 2]])
    expect(await jobs.renew('test:m1', 'dead-node', now)).toBe(false) // the dead node's lease is gone
  })

  it('hands a running job back at shutdown, with its attempt, for the next node', async () => {
    const { a, b } = await setup()
    let started!: () => void
    const running = new Promise<void>((resolve) => (started = resolve))
    const first = runner(a, { owner: 'node-a', handler: (_s, _n, signal) => (started(), new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)))) })
    await first.add('m1')
    await running
    await first.close(1000)
    const ran: [string, number][] = []
    const second = runner(b, { owner: 'node-b', handler: async (subject, attempt) => void ran.push([subject, attempt]) })
    await second.idle()
    expect(ran).toEqual([['m1', 1]])
  })
})
