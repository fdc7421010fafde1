import { request } from 'node:http'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createFakeEngine, fakeEngineRegistry, GAP_SEC, WORD_SEC } from './support/fake-tts-engines.js'
import { captureLogs } from './support/log-capture.js'
import { startTestServer, type TestServer } from './helpers/app.js'
import { LiveClient } from './helpers/live.js'
import { parseSse } from './helpers/sse.js'

/**
 * Every Fish TTS surface when its engine fails (fake engines: this is plumbing). Before the first byte: a
 * proper status and `{status, message}`. After it: the connection is cut (a truncated response must not look
 * whole) and the failure logged once with its request id. On the live socket: `finish` with reason `error`.
 */
const tone = createFakeEngine('tone')
const before = createFakeEngine('before', { failBefore: true })
// After three words (0.75 s): more than the 0.4 s the leveller holds back, so audio has left when it fails.
const after = createFakeEngine('after', { failAfter: 3 })
const slow = createFakeEngine('slow', { delayMs: 50 })
const logs = captureLogs()
let s: TestServer

beforeAll(async () => {
  s = await startTestServer({}, { ttsEngines: fakeEngineRegistry([tone, before, after, slow]), logger: logs.logger })
  await s.listen()
})
afterAll(() => s?.close())
beforeEach(() => void logs.lines.splice(0))

const TEXT = 'one two three four'
const body = (voice: string, format = 'wav') => ({ text: TEXT, reference_id: `${voice}-a`, format, latency: 'normal' })

/** POSTs over a real socket; resolves with the status, the bytes received, and whether the body ended properly. */
function post(path: string, payload: object): Promise<{ status: number; body: Buffer; complete: boolean }> {
  const data = Buffer.from(JSON.stringify(payload))
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, s.url), {
      method: 'POST',
      headers: { ...s.asAlice, 'content-type': 'application/json', 'content-length': data.length },
    }, (res) => {
      const parts: Buffer[] = []
      res.on('data', (c: Buffer) => parts.push(c))
      res.on('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(parts), complete: res.complete }))
      res.on('error', () => resolve({ status: res.statusCode!, body: Buffer.concat(parts), complete: false }))
      res.on('aborted', () => undefined)
    })
    req.on('error', reject)
    req.end(data)
  })
}

/** The error lines logged for the last request: exactly one, with a request id. */
function oneErrorWithRequestId(msg: RegExp) {
  const errors = logs.errors()
  expect(errors, JSON.stringify(logs.lines)).toHaveLength(1)
  expect(errors[0]!.msg).toMatch(msg)
  expect(errors[0]!.reqId).toBeTruthy()
}

describe.each([
  ['POST /v1/tts', '/v1/tts'],
  ['SSE', '/v1/tts/stream/with-timestamp'],
])('%s when the engine fails', (_name, path) => {
  it('before its first audio: 502 with {status, message}, logged once with the request id', async () => {
    const res = await post(path, body('before'))
    // engine_failed: a bad gateway, with no detail for the client (it is logged).
    expect(res.status).toBe(502)
    expect(JSON.parse(res.body.toString())).toEqual({ status: 502, message: 'Internal server error' })
    oneErrorWithRequestId(/request failed/)
  })

  it('after its first audio: the connection is cut, logged once with the request id', async () => {
    const res = await post(path, body('after'))
    expect(res.status).toBe(200)
    expect(res.body.length).toBeGreaterThan(0)
    expect(res.complete).toBe(false)
    await expect.poll(() => logs.errors().length).toBe(1)
    oneErrorWithRequestId(/connection cut/)
  })
})

describe('the fake tone engine through the whole chain', () => {
  it('gives /v1/tts the audio it made', async () => {
    const res = await post('/v1/tts', body('tone'))
    expect(res.status).toBe(200)
    expect(res.complete).toBe(true)
    expect(res.body.subarray(0, 4).toString()).toBe('RIFF')
    expect(logs.errors()).toEqual([])
  })

  it('gives SSE its exact word times', async () => {
    const res = await post('/v1/tts/stream/with-timestamp', body('tone', 'pcm'))
    const events = parseSse(res.body.toString())
    const last = events.filter((e) => e.alignment).at(-1)!
    const words = last.alignment!.segments.map((w) => [w.text, w.start, w.end])
    const step = WORD_SEC + GAP_SEC
    expect(words).toEqual(TEXT.split(' ').map((w, i) => [w, expect.closeTo(i * step, 2), expect.closeTo(i * step + WORD_SEC, 2)]))
  })

  it('stops the engine when the client goes away', async () => {
    // Plainly English (a repeated single word can read as another language and go to another voice).
    const data = Buffer.from(JSON.stringify({ ...body('slow'), text: 'This is one of the words that keep on coming. '.repeat(20) }))
    await new Promise<void>((resolve, reject) => {
      const req = request(new URL('/v1/tts', s.url), {
        method: 'POST',
        headers: { ...s.asAlice, 'content-type': 'application/json', 'content-length': data.length },
      }, (res) => res.once('data', () => (req.destroy(), resolve())))
      req.on('error', () => undefined)
      req.once('error', reject)
      req.end(data)
    })
    await expect.poll(() => slow.log.active).toBe(0)
    expect(slow.log.stopped).toBe(1)
    expect(slow.log.chunks).toBeLessThan(200)
    expect(logs.errors()).toEqual([])
  })
})

describe('live socket when the engine fails', () => {
  for (const voice of ['before', 'after']) {
    it(`${voice} its first audio: finish with reason error, logged once with the request id`, async () => {
      const client = await LiveClient.connect(s.url, s.asAlice)
      try {
        const { finish } = await client.speak({ reference_id: `${voice}-a`, format: 'pcm' }, TEXT)
        expect(finish).toEqual({ event: 'finish', reason: 'error', message: 'Internal server error' })
        oneErrorWithRequestId(/live synthesis failed/)
        // The socket stays usable: the next utterance, with a working voice, is spoken.
        const next = await client.speak({ reference_id: 'tone-a', format: 'pcm' }, TEXT)
        expect(next.finish).toEqual({ event: 'finish', reason: 'stop' })
        expect(next.audio.length).toBeGreaterThan(0)
      } finally {
        await client.close()
      }
    })
  }
})
