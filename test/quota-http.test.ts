import { request, type ClientRequest, type IncomingMessage } from 'node:http'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import type { QuotaRejection } from '../src/services/account/quota.js'
import { startTestServer, type TestServer } from './helpers/app.js'
import { asrRequestBody } from './helpers/quota.js'

/**
 * Quotas over real HTTP on a real (SQLite) database with the real engines: concurrency (429 + Retry-After,
 * the slot back when a stream ends or its client goes away), requests per minute, monthly characters and
 * audio seconds, and what `/wallet/self/*` reports. The quota clock is pinned (12:00:30 UTC on the 23rd), so
 * minute and month boundaries never move under a test.
 */
const START = Date.UTC(2026, 10, 23, 12, 0, 30)
let clock = START
let s: TestServer
const rejections: QuotaRejection[] = []

/**
 * About 17,000 characters: some 20 minutes of speech, far more than the socket buffers between a client that
 * stopped reading and the server hold, so a held stream cannot finish (and free its slot) on its own.
 */
const LONG = Array.from({ length: 240 }, () => 'The council approved the budget after a long debate on Tuesday evening.').join(' ')

beforeAll(async () => {
  s = await startTestServer({}, { quota: { now: () => clock } })
  s.deps.quota.onRejected((r) => rejections.push(r))
  await s.listen()
})
afterAll(async () => s.close())

/** A new account with its own key and limits. */
async function account(name: string, limits: Parameters<TestServer['deps']['quota']['setLimits']>[1]) {
  const { key, info } = await s.deps.keys.create(name)
  await s.deps.quota.setLimits(info.accountId, limits)
  return { auth: { authorization: `Bearer ${key}` }, accountId: info.accountId, keyId: info.id }
}

/** A JSON answer, loosely typed: the assertions say what it must hold. */
const json = async (res: Response): Promise<any> => res.json()

const tts = (auth: object, text = 'Hello there.', path = '/v1/tts') =>
  fetch(new URL(path, s.url), { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ text, format: 'wav' }) })

/** A long stream whose client read its first bytes and then stopped reading: it holds its slot. */
function heldStream(auth: object, path = '/v1/tts'): Promise<{ req: ClientRequest; res: IncomingMessage }> {
  const body = Buffer.from(JSON.stringify({ text: LONG, format: 'pcm', sample_rate: 44_100, latency: 'low' }))
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, s.url), { method: 'POST', headers: { ...auth, 'content-type': 'application/json', 'content-length': body.length } }, (res) => {
      expect(res.statusCode).toBe(200)
      res.once('data', () => {
        res.pause()
        resolve({ req, res })
      })
    })
    req.on('error', (err) => (err.message.includes('socket hang up') ? undefined : reject(err)))
    req.end(body)
  })
}

describe('concurrency', () => {
  it('a second stream gets 429 with Retry-After naming the limit; the slot comes back when the client goes away', async () => {
    const a = await account('conc', { concurrency: 1 })
    const held = await heldStream(a.auth)
    const refused = await tts(a.auth)
    expect(refused.status).toBe(429)
    expect(refused.headers.get('retry-after')).toBe('1')
    const body = await json(refused)
    expect(Object.keys(body).sort()).toEqual(['message', 'status'])
    expect(body.message).toMatch(/Concurrency limit reached: this account may run 1 requests and live sockets at once/)
    expect(rejections).toContainEqual({ limit: 'concurrency', accountId: a.accountId, keyId: a.keyId })
    // The refusal counted nothing: the held stream is the account's only request this month.
    expect((await s.deps.quota.usage(a.accountId)).requests).toBe(1)
    // Another account is not held back.
    expect((await tts(s.asBob)).status).toBe(200)
    // OpenAI's surface shares the slot and answers in its own shape.
    const openai = await fetch(new URL('/v1/audio/speech', s.url), {
      method: 'POST', headers: { ...a.auth, 'content-type': 'application/json' }, body: JSON.stringify({ input: 'Hi.', voice: 'alloy' }),
    })
    expect(openai.status).toBe(429)
    expect(openai.headers.get('retry-after')).toBe('1')
    expect((await json(openai)).error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limit_exceeded', message: expect.stringContaining('Concurrency limit') })

    held.req.destroy()
    await vi.waitFor(async () => expect((await tts(a.auth)).status).toBe(200), { timeout: 60_000, interval: 50 })
  })

  it('a stream that ends frees its slot before the client can send the next request', async () => {
    const a = await account('sequential', { concurrency: 1 })
    for (const path of ['/v1/tts', '/v1/tts/stream/with-timestamp', '/v1/tts']) {
      const res = await tts(a.auth, 'One more sentence, please.', path)
      expect(res.status).toBe(200)
      await res.arrayBuffer()
    }
    // A request that cannot be spoken (unknown voice) is answered before admission: it counts nothing.
    const unknown = await fetch(new URL('/v1/tts', s.url), {
      method: 'POST', headers: { ...a.auth, 'content-type': 'application/json' }, body: JSON.stringify({ text: 'Hi.', reference_id: 'no-such-voice' }),
    })
    expect(unknown.status).toBe(404)
    expect(await s.deps.quota.usage(a.accountId)).toMatchObject({ requests: 3, characters: 3 * 'One more sentence, please.'.length })
  })

  it('ASR counts against the same slot as TTS', async () => {
    const a = await account('asr-conc', { concurrency: 1 })
    const held = await heldStream(a.auth, '/v1/tts/stream/with-timestamp')
    const asr = await fetch(new URL('/v1/asr', s.url), { method: 'POST', headers: a.auth, body: asrRequestBody() })
    expect(asr.status).toBe(429)
    expect(asr.headers.get('retry-after')).toBe('1')
    held.req.destroy()
  })
})

describe('requests per minute', () => {
  it('the third request in a minute of a 2-per-minute account is refused until the minute is over', async () => {
    const a = await account('rpm', { requestsPerMinute: 2 })
    expect((await tts(a.auth)).status).toBe(200)
    expect((await tts(a.auth)).status).toBe(200)
    const refused = await tts(a.auth)
    expect(refused.status).toBe(429)
    // 12:00:30: the window ends in 30 s.
    expect(refused.headers.get('retry-after')).toBe('30')
    expect((await json(refused)).message).toMatch(/may make 2 requests a minute; retry in 30 s/)
    expect((await s.deps.quota.usage(a.accountId)).requests).toBe(2)
    // Operators see the refusal in /metrics, by the limit that refused it.
    const metrics = await (await fetch(`${s.url}/metrics`)).text()
    expect(metrics).toMatch(/^parla_quota_rejections_total\{limit="requestsPerMinute"\} [1-9]/m)
    clock = START + 60_000
    try {
      expect((await tts(a.auth)).status).toBe(200)
    } finally {
      clock = START
    }
  })
})

describe('monthly characters', () => {
  it('refuses text past the limit, counts nothing for it, and the wallet reports what is left', async () => {
    const a = await account('chars', { charactersPerMonth: 30 })
    const wallet = async () => ({
      credit: await json(await fetch(new URL('/wallet/self/api-credit', s.url), { headers: a.auth })),
      pkg: await json(await fetch(new URL('/wallet/self/package', s.url), { headers: a.auth })),
    })
    const first = await wallet()
    expect(first.credit).toMatchObject({ credit: '30', unlimited: false, limits: { characters_per_month: 30, concurrency: 0 } })
    expect(first.pkg).toMatchObject({ type: 'quota', total: 30, balance: 30, finished_at: '' })

    expect((await tts(a.auth, 'Twenty characters ok')).status).toBe(200)
    const refused = await tts(a.auth, 'Twenty more is over.')
    expect(refused.status).toBe(429)
    // From 12:00:30 on the 23rd of November to 1 December, UTC.
    expect(Number(refused.headers.get('retry-after'))).toBe((Date.UTC(2026, 11, 1) - START) / 1000)
    expect((await json(refused)).message).toMatch(/may synthesize 30 characters a month and has 10 left, this text needs 20; send shorter text or wait for the next month \(2026-12-01, UTC\)/)

    const after = await wallet()
    expect(after.credit).toMatchObject({ credit: '10', usage: { month: '2026-11', requests: 1, characters: 20 } })
    expect(after.pkg).toMatchObject({ total: 30, balance: 10, finished_at: '' })
    // Exactly what is left still goes; then the package is finished.
    expect((await tts(a.auth, 'Ten chars!')).status).toBe(200)
    const done = await wallet()
    expect(done.pkg).toMatchObject({ balance: 0, finished_at: expect.stringMatching(/^\d{4}-/) })
    // TTS output seconds are written when each response is over.
    await vi.waitFor(async () => expect((await wallet()).credit.usage.speech_seconds).toBeGreaterThan(0.5), { timeout: 30_000 })
    // The next month starts over.
    clock = Date.UTC(2026, 11, 1, 0, 0, 1)
    try {
      expect((await tts(a.auth, 'Twenty characters ok')).status).toBe(200)
    } finally {
      clock = START
    }
  })

  it('an unlimited account reads as before: unlimited credit, its usage counted', async () => {
    const credit = await json(await fetch(new URL('/wallet/self/api-credit', s.url), { headers: s.asBob }))
    expect(credit).toMatchObject({ unlimited: true, credit: String(Number.MAX_SAFE_INTEGER), limits: { concurrency: 0, requests_per_minute: 0 } })
    expect(credit.usage.requests).toBeGreaterThan(0)
  })
})

describe('monthly audio seconds', () => {
  it('ASR is refused once the month\'s audio seconds are used up, and its seconds are recorded', async () => {
    const a = await account('audio', { audioSecondsPerMonth: 2 })
    const asr = () => fetch(new URL('/v1/asr', s.url), { method: 'POST', headers: a.auth, body: asrRequestBody() })
    const ok = await asr()
    expect(ok.status, await ok.clone().text()).toBe(200)
    const { duration } = await json(ok)
    expect((await s.deps.quota.usage(a.accountId)).audioSeconds).toBeCloseTo(duration, 3)
    expect(duration).toBeGreaterThan(2)
    const refused = await asr()
    expect(refused.status).toBe(429)
    expect((await json(refused)).message).toMatch(/may transcribe 2 seconds of audio a month/)
    const openai = await fetch(new URL('/v1/audio/transcriptions', s.url), { method: 'POST', headers: a.auth, body: asrRequestBody('file') })
    expect(openai.status).toBe(429)
    expect((await s.deps.quota.usage(a.accountId)).requests).toBe(1)
  })
})
