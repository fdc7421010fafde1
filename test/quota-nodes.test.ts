import { spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { SpeechError } from '../src/errors.js'
import { createLogger } from '../src/logger.js'
import { UNLIMITED_LIMITS } from '../src/services/account/limits.js'
import { createQuotaService, type QuotaService } from '../src/services/account/quota.js'
import { dialectFor, openDatabase, type Db } from '../src/store/db/database.js'
import { createQuotaRepository } from '../src/store/db/repositories/quota.js'

/**
 * Limits hold across nodes: each node is a quota service with its own connection to one database file.
 * Counts one node makes bind the others, and a node killed with SIGKILL (no release, no cleanup) leaves
 * its slot only until its lease lapses.
 */
let dir: string
let file: string
const dbs: Db[] = []
const services: QuotaService[] = []

/** A node: its own quota service (leases, timer) on its own connection, or on `db` when given. */
async function node(leaseMs?: number, shared?: Db): Promise<QuotaService> {
  const db = shared ?? (await openDatabase(dialectFor(`sqlite:${file}`, dir)))
  if (!shared) dbs.push(db)
  const quota = createQuotaService({ repo: createQuotaRepository(db), defaults: UNLIMITED_LIMITS, logger: createLogger('silent'), ...(leaseMs && { leaseMs }) })
  services.push(quota)
  return quota
}

const refusal = (p: Promise<unknown>) => p.then(() => null, (err: unknown) => (err instanceof SpeechError ? err : Promise.reject(err)))

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'parla-quota-'))
  file = join(dir, 'parla.db')
})
afterAll(async () => {
  for (const q of services) await q.close()
  for (const db of dbs) await db.destroy()
  await rm(dir, { recursive: true, force: true })
})

describe('quotas across nodes on one database', () => {
  it('concurrency and requests per minute count the requests of every node', async () => {
    const a = await node()
    const b = await node()
    await a.setLimits('acct-1', { concurrency: 2, requestsPerMinute: 3 })
    const principal = { accountId: 'acct-1', keyId: 'k1' }
    const first = await a.admit(principal)
    const second = await b.admit({ accountId: 'acct-1', keyId: 'k2' })
    const third = await refusal(a.admit(principal))
    expect(third).toMatchObject({ code: 'rate_limited', retryAfterSec: 1 })
    expect(third?.message).toMatch(/run 2 requests/)
    await second.release()
    const fourth = await a.admit(principal)
    // The minute's three requests are used (the refused one was taken back): the next is refused on either node.
    await first.release()
    await fourth.release()
    expect((await refusal(b.admit(principal)))?.message).toMatch(/3 requests a minute/)
    const usage = await b.usage('acct-1')
    expect(usage.requests).toBe(3)
    const rows = await a.keyUsageRows()
    expect(rows.map((r) => [r.keyId, r.requests]).sort()).toEqual([['k1', 2], ['k2', 1]])
  })

  // better-sqlite3 is synchronous: two connections in one process would wait on each other's locks with the
  // thread blocked. One SQLite file is one node's database anyway, so the race runs two quota services over
  // one connection here; with PostgreSQL (test/support/postgres when present) each gets its own pool.
  it('requests racing on two quota services: exactly the limit is admitted, for slots and for characters', async () => {
    const db = await openDatabase(dialectFor(`sqlite:${file}`, dir))
    dbs.push(db)
    const a = await node(undefined, db)
    const b = await node(undefined, db)
    await a.setLimits('acct-race', { concurrency: 3 })
    const race = (account: string, characters?: number) =>
      Promise.allSettled(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).admit({ accountId: account, keyId: `race-${i % 4}` }, characters ? { characters } : {})))
    const slots = await race('acct-race')
    const admitted = slots.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []))
    expect(admitted).toHaveLength(3)
    expect(slots.every((r) => r.status === 'fulfilled' || (r.reason as SpeechError).code === 'rate_limited')).toBe(true)
    for (const t of admitted) await t.release()
    expect((await b.usage('acct-race')).requests).toBe(3)

    await b.setLimits('acct-chars', { charactersPerMonth: 100 })
    const texts = await race('acct-chars', 10)
    expect(texts.filter((r) => r.status === 'fulfilled')).toHaveLength(10)
    expect(await a.usage('acct-chars')).toMatchObject({ requests: 10, characters: 100 })
  })

  it('a node killed with SIGKILL holds its slot only until its lease lapses', async () => {
    const survivor = await node()
    await survivor.setLimits('acct-2', { concurrency: 1 })
    const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./helpers/quota-node-child.ts', import.meta.url)), file, 'acct-2', '10000'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    const exited = new Promise((resolve) => child.once('exit', resolve))
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (b: Buffer) => b.toString().includes('admitted') && resolve())
        child.once('exit', (code) => reject(new Error(`child exited (${code}) before admitting`)))
      })
      // The child renews its 10 s lease every 3.3 s: while it lives, the slot is its.
      expect(await refusal(survivor.admit({ accountId: 'acct-2', keyId: 'k' }))).toMatchObject({ code: 'rate_limited' })
    } finally {
      child.kill('SIGKILL')
      await exited
    }
    const ticket = await vi.waitFor(() => survivor.admit({ accountId: 'acct-2', keyId: 'k' }), { timeout: 60_000, interval: 250 })
    await ticket.release()
  })
})
