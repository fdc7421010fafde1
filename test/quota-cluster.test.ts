/**
 * Quotas hold when one account's requests are spread over several real Parla nodes on one PostgreSQL (issue
 * 16): of a burst sent to two nodes at once, exactly the account's concurrency (or requests per minute) is
 * admitted, whichever node each request reached; the rest get 429 with `Retry-After` and a message naming
 * the limit. Admission is judged by effect: an admitted stream speaks a long text to a client that stopped
 * reading, so it holds its slot until the test lets it go, however slow the machine is.
 */
import { request, type ClientRequest, type IncomingMessage } from 'node:http'
import { tmpdir } from 'node:os'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { createLogger } from '../src/logger.js'
import { UNLIMITED_LIMITS, type LimitChanges } from '../src/services/account/limits.js'
import { createQuotaService, type QuotaService } from '../src/services/account/quota.js'
import { dialectFor, openDatabase, type Db } from '../src/store/db/database.js'
import { createKeyRepository } from '../src/store/db/repositories/keys.js'
import { createQuotaRepository } from '../src/store/db/repositories/quota.js'
import { freshPostgres, type FreshDatabase } from './support/postgres/fresh.js'
import { createCluster, type Node } from './helpers/cluster.js'

/** About 17,000 characters (some 20 minutes of speech): a stream its client stopped reading cannot finish. */
const LONG = Array.from({ length: 240 }, () => 'The council approved the budget after a long debate on Tuesday evening.').join(' ')

/** How one request of a burst ended: admitted (a stream now held open) or refused with what the node said. */
type Outcome =
  | { readonly admitted: true; readonly node: string; readonly req: ClientRequest; readonly res: IncomingMessage }
  | { readonly admitted: false; readonly node: string; readonly status: number; readonly retryAfter: string | undefined; readonly message: string }

/** Sends a TTS request to `node` and settles once the node decided: first audio (admitted) or a refusal. */
function ask(node: Node, auth: object, text: string): Promise<Outcome> {
  const body = Buffer.from(JSON.stringify({ text, format: 'pcm', sample_rate: 16_000, latency: 'low' }))
  return new Promise((resolve, reject) => {
    const req = request(`${node.url}/v1/tts`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json', 'content-length': body.length } }, (res) => {
      if (res.statusCode === 200) {
        res.on('error', () => {}) // the test cuts held streams (or kills their node): expected
        res.once('data', () => {
          res.pause()
          resolve({ admitted: true, node: node.name, req, res })
        })
        return
      }
      const parts: Buffer[] = []
      res.on('data', (d: Buffer) => parts.push(d))
      res.on('end', () => {
        const text = Buffer.concat(parts).toString()
        let message = text
        try {
          message = (JSON.parse(text) as { message: string }).message
        } catch {
          // not JSON: the raw text goes into the assertion's output
        }
        resolve({ admitted: false, node: node.name, status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'], message })
      })
    })
    req.on('error', (err) => (err.message.includes('socket hang up') ? undefined : reject(err)))
    req.end(body)
  })
}

/** Ends every admitted stream (the client goes away: the node stops the work and frees the slot). */
const letGo = (outcomes: readonly Outcome[]) => {
  for (const o of outcomes) if (o.admitted) o.req.destroy()
}

/** Polls until `done` says so; the test timeout is the only deadline, so a slow machine only waits. */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (;;) {
    const value = await read()
    if (done(value)) return value
    await new Promise((r) => setTimeout(r, 100))
  }
}

describe('quotas across two nodes on one PostgreSQL', () => {
  let database: FreshDatabase
  let db: Db
  let quota: QuotaService
  let cluster: ReturnType<typeof createCluster>
  let a: Node
  let b: Node

  /** A new account with one key and the given limits. */
  async function account(name: string, limits: LimitChanges) {
    const { key, info } = await createKeyRepository(db).create(name)
    await quota.setLimits(info.accountId, limits)
    return { auth: { authorization: `Bearer ${key}` }, accountId: info.accountId }
  }

  beforeAll(async () => {
    database = await freshPostgres()
    db = await openDatabase(dialectFor(database.url, tmpdir()))
    quota = createQuotaService({ repo: createQuotaRepository(db), defaults: UNLIMITED_LIMITS, logger: createLogger('silent') })
    cluster = createCluster(database.url)
    // A short lease: the last test waits for the slots of a killed node to come back.
    ;[a, b] = await Promise.all([cluster.start('qa', { quotaLeaseSec: 3 }), cluster.start('qb', { quotaLeaseSec: 3 })])
  })
  afterAll(async () => {
    await cluster?.stopAll()
    await quota?.close()
    await db?.destroy()
    await database?.drop()
  })

  it('concurrency: of 10 streams sent to two nodes at once, exactly 3 are admitted; the rest get 429 naming the limit', async () => {
    const acct = await account('spread-concurrency', { concurrency: 3 })
    const outcomes = await Promise.all(Array.from({ length: 10 }, (_, i) => ask(i % 2 ? a : b, acct.auth, LONG)))
    try {
      const admitted = outcomes.filter((o) => o.admitted)
      const refused = outcomes.filter((o) => !o.admitted)
      expect(admitted, JSON.stringify(refused)).toHaveLength(3)
      expect(refused).toHaveLength(7)
      for (const r of refused) {
        expect(r).toMatchObject({ status: 429, retryAfter: '1' })
        expect(r.message).toMatch(/^Concurrency limit reached: this account may run 3 requests and live sockets at once/)
      }
      // Both nodes refused some: each saw the slots the other node's streams hold.
      expect(new Set(refused.map((r) => r.node))).toEqual(new Set(['qa', 'qb']))
      // A live socket counts as a slot too, on either node.
      const socket = await new Promise<number>((resolve) => {
        const ws = new WebSocket(`${a.url.replace('http', 'ws')}/v1/tts/live`, { headers: acct.auth })
        ws.on('error', () => {}) // the refused upgrade, reported after `unexpected-response`
        ws.once('unexpected-response', (req, res) => {
          resolve(res.statusCode ?? 0)
          req.destroy()
        })
        ws.once('open', () => (resolve(101), ws.close()))
      })
      expect(socket).toBe(429)
    } finally {
      letGo(outcomes)
    }
    // The slots come back on both nodes once the streams end: one more stream is admitted on each node.
    const again = await until(async () => {
      const tried = await Promise.all([ask(a, acct.auth, LONG), ask(b, acct.auth, LONG)])
      letGo(tried)
      return tried
    }, (tried) => tried.every((o) => o.admitted))
    expect(again.map((o) => o.node)).toEqual(['qa', 'qb'])
  })

  it('requests per minute: of 12 requests sent to two nodes at once, exactly 5 are admitted', async () => {
    // A minute is a calendar minute: start the burst early in one, so that it cannot straddle two. Should a
    // very slow machine still cross the boundary, the minute rows show it and the burst is sent again.
    for (let attempt = 0; ; attempt++) {
      const second = new Date().getUTCSeconds()
      if (second > 45) await new Promise((r) => setTimeout(r, (60 - second) * 1000))
      const acct = await account(`spread-rpm-${attempt}`, { requestsPerMinute: 5 })
      const outcomes = await Promise.all(Array.from({ length: 12 }, (_, i) => ask(i % 2 ? a : b, acct.auth, 'Hello.')))
      letGo(outcomes)
      const client = new pg.Client({ connectionString: database.url })
      await client.connect()
      const minutes = await client.query('select minute, used from quota_minutes where account_id = $1', [acct.accountId])
      await client.end()
      if (minutes.rows.length > 1 && attempt < 2) continue
      expect(minutes.rows).toEqual([expect.objectContaining({ used: 5 })])
      const refused = outcomes.filter((o) => !o.admitted)
      expect(outcomes.filter((o) => o.admitted), JSON.stringify(refused)).toHaveLength(5)
      expect(new Set(refused.map((r) => r.node))).toEqual(new Set(['qa', 'qb']))
      for (const r of refused) {
        expect(r.status).toBe(429)
        expect(Number(r.retryAfter)).toBeGreaterThanOrEqual(1)
        expect(Number(r.retryAfter)).toBeLessThanOrEqual(60)
        expect(r.message).toMatch(/^Rate limit reached: this account may make 5 requests a minute; retry in \d+ s/)
      }
      expect((await quota.usage(acct.accountId)).requests).toBe(5)
      return
    }
  })

  it('a node killed with SIGKILL while holding slots frees them on the other node within its lease', async () => {
    const acct = await account('spread-kill', { concurrency: 2 })
    const held = await Promise.all([ask(a, acct.auth, LONG), ask(a, acct.auth, LONG)])
    try {
      expect(held.every((o) => o.admitted)).toBe(true)
      const refused = await ask(b, acct.auth, LONG)
      expect(refused).toMatchObject({ admitted: false, status: 429 })
      a.child.kill('SIGKILL')
      await a.exited
      // Node A renewed nothing after it died: its leases lapse and B admits the account's streams again.
      const after = await until(async () => {
        const tried = await Promise.all([ask(b, acct.auth, LONG), ask(b, acct.auth, LONG)])
        letGo(tried)
        return tried
      }, (tried) => tried.every((o) => o.admitted))
      expect(after).toHaveLength(2)
    } finally {
      letGo(held)
    }
  })
})
