import WebSocket from 'ws'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { startWyomingServer, type WyomingServer } from '../src/api/wyoming/server.js'
import { WYOMING_PRINCIPAL } from '../src/api/wyoming/principal.js'
import { startTestServer, type TestServer } from './helpers/app.js'
import { LiveClient } from './helpers/live.js'
import { wyomingClient } from './helpers/wyoming-client.js'

/**
 * Quotas on the socket surfaces: an open live socket holds one of its account's concurrent slots (a second
 * one is refused at the upgrade with an HTTP 429 and Retry-After, and so is an HTTP stream), its text is
 * charged as spoken; Wyoming answers a refusal with an `error` event.
 */
let s: TestServer
let wyoming: WyomingServer

beforeAll(async () => {
  s = await startTestServer()
  await s.listen()
  wyoming = await startWyomingServer(s.deps, { host: '127.0.0.1', port: 0, log: s.app.log })
})
afterAll(async () => {
  await wyoming.close()
  await s.close()
})

async function account(name: string, limits: Parameters<TestServer['deps']['quota']['setLimits']>[1]) {
  const { key, info } = await s.deps.keys.create(name)
  await s.deps.quota.setLimits(info.accountId, limits)
  return { auth: { authorization: `Bearer ${key}` }, accountId: info.accountId }
}

/** The upgrade's HTTP answer when the server refuses it. */
function refusedUpgrade(auth: Record<string, string>): Promise<{ status: number; retryAfter: string | undefined; body: string }> {
  const ws = new WebSocket(`${s.url.replace(/^http/, 'ws')}/v1/tts/live`, { headers: auth })
  return new Promise((resolve, reject) => {
    ws.once('open', () => reject(new Error('the upgrade went through')))
    ws.once('unexpected-response', (_req, res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'], body: Buffer.concat(chunks).toString() }))
    })
    ws.once('error', () => {})
  })
}

describe('live socket', () => {
  it('holds a slot while open: a second socket and an HTTP stream get 429; closing it frees the slot', async () => {
    const a = await account('live-conc', { concurrency: 1 })
    const first = await LiveClient.connect(s.url, a.auth)
    const refused = await refusedUpgrade(a.auth)
    expect(refused.status).toBe(429)
    expect(refused.retryAfter).toBe('1')
    expect(JSON.parse(refused.body).message).toMatch(/Concurrency limit reached.*live sockets/)
    const http = await fetch(new URL('/v1/tts', s.url), { method: 'POST', headers: { ...a.auth, 'content-type': 'application/json' }, body: JSON.stringify({ text: 'Hi.' }) })
    expect(http.status).toBe(429)
    // The open socket still speaks.
    const spoken = await first.speak({ format: 'pcm' }, 'Still here.')
    expect(spoken.finish).toMatchObject({ event: 'finish', reason: 'stop' })
    expect(spoken.audio.length).toBeGreaterThan(1000)

    await first.close()
    const second = await vi.waitFor(() => LiveClient.connect(s.url, a.auth), { timeout: 60_000, interval: 50 })
    await second.close()
  })

  it('a client that drops its connection without a close frame frees the slot', async () => {
    const a = await account('live-drop', { concurrency: 1 })
    const first = await LiveClient.connect(s.url, a.auth)
    first.ws.terminate()
    const second = await vi.waitFor(() => LiveClient.connect(s.url, a.auth), { timeout: 60_000, interval: 50 })
    await second.close()
  })

  it('text past the monthly characters ends the utterance with finish {reason: "error"} naming the limit', async () => {
    const a = await account('live-chars', { charactersPerMonth: 20 })
    const c = await LiveClient.connect(s.url, a.auth)
    const ok = await c.speak({ format: 'pcm' }, 'Short one.')
    expect(ok.finish).toMatchObject({ reason: 'stop' })
    const over = await c.speak({ format: 'pcm' }, 'This sentence is well over what is left.')
    expect(over.finish).toMatchObject({ event: 'finish', reason: 'error', message: expect.stringMatching(/Monthly character limit reached.*wait for the next month \(\d{4}-\d{2}-01, UTC\)/) })
    const usage = await s.deps.quota.usage(a.accountId)
    // The socket is one request; only the text that was spoken counts.
    expect(usage.requests).toBe(1)
    expect(usage.characters).toBeLessThanOrEqual(20)
    expect(usage.characters).toBeGreaterThanOrEqual('Short one.'.length)
    await c.close()
  })
})

describe('wyoming', () => {
  it('a refused synthesis is an error event with the limit and code rate_limited; usage is counted as the wyoming account', async () => {
    await s.deps.quota.setLimits(WYOMING_PRINCIPAL.accountId, { charactersPerMonth: 30 })
    try {
      const c = await wyomingClient(wyoming.port)
      c.send('synthesize', { text: 'Hello from Wyoming.' })
      const ok = await c.until('audio-stop')
      expect(ok.some((e) => e.type === 'audio-chunk')).toBe(true)
      c.send('synthesize', { text: 'This one is too long for what is left.' })
      const error = await c.next()
      expect(error.type).toBe('error')
      expect(error.data).toMatchObject({ code: 'rate_limited', text: expect.stringMatching(/Monthly character limit reached.*next month/) })
      const usage = await s.deps.quota.usage(WYOMING_PRINCIPAL.accountId)
      expect(usage).toMatchObject({ requests: 1, characters: 'Hello from Wyoming.'.length })
      await vi.waitFor(async () => expect((await s.deps.quota.usage(WYOMING_PRINCIPAL.accountId)).speechSeconds).toBeGreaterThan(0.3))
      c.close()
    } finally {
      await s.deps.quota.setLimits(WYOMING_PRINCIPAL.accountId, { charactersPerMonth: null })
    }
  })

  it('a synthesis holds a concurrency slot only while it runs', async () => {
    await s.deps.quota.setLimits(WYOMING_PRINCIPAL.accountId, { concurrency: 1 })
    try {
      const c = await wyomingClient(wyoming.port)
      for (const text of ['First request.', 'Second request.']) {
        c.send('synthesize', { text })
        const events = await c.until('audio-stop')
        expect(events.some((e) => e.type === 'error')).toBe(false)
      }
      // A streamed request holds its slot from its first sentence to synthesize-stop: another connection waits.
      c.send('synthesize-start', {})
      c.send('synthesize-chunk', { text: 'A streamed sentence. ' })
      await c.until('audio-chunk')
      const other = await wyomingClient(wyoming.port)
      other.send('synthesize', { text: 'Refused.' })
      expect((await other.next()).data).toMatchObject({ code: 'rate_limited', text: expect.stringMatching(/Concurrency limit/) })
      c.send('synthesize-stop')
      await c.until('synthesize-stopped')
      other.send('synthesize', { text: 'Now it goes.' })
      const events = await other.until('audio-stop')
      expect(events.some((e) => e.type === 'error')).toBe(false)
      c.close()
      other.close()
    } finally {
      await s.deps.quota.setLimits(WYOMING_PRINCIPAL.accountId, { concurrency: null })
    }
  })
})
