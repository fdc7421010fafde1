import { request, type ClientRequest } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startWyomingServer, type WyomingServer } from '../src/api/wyoming/server.js'
import { createFakeEngine, fakeEngineRegistry } from './support/fake-tts-engines.js'
import { startTestServer, type TestServer } from './helpers/app.js'
import { LiveClient } from './helpers/live.js'
import { wyomingClient } from './helpers/wyoming-client.js'

/**
 * Admission control on every surface: a node at `maxStreams` lines new streams up for `admissionWaitSec`,
 * then answers 503 with `Retry-After` in each surface's shape. Fake engines where the test is plumbing (a
 * slow one keeps a stream open as long as the test needs), then a real engine.
 */
const eventually = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 120_000, interval: 20 })
const ENGLISH = 'the cat sat on a mat and then went home to sleep'.split(' ')
const words = (n: number) => Array.from({ length: n }, (_, i) => ENGLISH[i % ENGLISH.length]).join(' ')

interface Answer {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: string
}

/** POSTs over a real socket. `onHeaders` fires when the status arrives (the stream's first audio has left). */
function post(s: TestServer, path: string, payload: object, onHeaders?: (req: ClientRequest) => void): Promise<Answer> {
  const data = Buffer.from(JSON.stringify(payload))
  return new Promise((resolve) => {
    const req = request(new URL(path, s.url), {
      method: 'POST',
      headers: { ...s.asAlice, 'content-type': 'application/json', 'content-length': data.length },
    }, (res) => {
      onHeaders?.(req)
      let body = ''
      res.setEncoding('latin1')
      res.on('data', (c: string) => (body += c))
      const done = () => resolve({ status: res.statusCode!, headers: res.headers, body })
      res.on('end', done)
      res.on('close', done)
    })
    req.on('error', () => resolve({ status: 0, headers: {}, body: '' }))
    req.end(data)
  })
}

/** A stream on the slow engine (150 s of engine delays), open until `cut()`; resolves once its first audio has left. */
async function holdStream(s: TestServer): Promise<{ cut(): void }> {
  let held: ClientRequest | undefined
  void post(s, '/v1/tts', { text: words(3000), reference_id: 'slow-a', format: 'pcm', latency: 'normal' }, (req) => (held = req))
  await eventually(() => held !== undefined).toBe(true)
  return { cut: () => held!.destroy() }
}

const running = (s: TestServer) => Object.values(s.deps.admission.snapshot().running).reduce((a, b) => a + b, 0)
const speak = (voice: string) => ({ text: 'hello there, how are you', reference_id: voice, format: 'pcm' })
/**
 * A request more than 1 s of expected work (characters × the engine cost, see operations.md "Waiting by
 * expected work"): a full node lines it up or refuses it, where a short one would be served beyond the limits.
 */
const LONG = `${words(400)}.`
const speakLong = (voice: string) => ({ ...speak(voice), text: LONG })

describe('a full node, no line (fake engines)', () => {
  let s: TestServer
  let wyoming: WyomingServer
  beforeAll(async () => {
    const engines = fakeEngineRegistry([createFakeEngine('tone'), createFakeEngine('slow', { delayMs: 50 })])
    s = await startTestServer({ maxStreams: 1, admissionQueueLength: 0 }, { ttsEngines: engines })
    await s.listen()
    wyoming = await startWyomingServer(s.deps, { host: '127.0.0.1', port: 0, log: s.app.log })
  })
  afterAll(async () => {
    await wyoming?.close()
    await s?.close()
  })

  it('turns every surface away with 503 and Retry-After in its own shape, and admits again once a place frees', async () => {
    const held = await holdStream(s)
    expect(s.deps.admission.snapshot().running.tts).toBe(1)

    for (const path of ['/v1/tts', '/v1/tts/stream/with-timestamp']) {
      const fish = await post(s, path, speakLong('tone-a'))
      expect(fish.status).toBe(503)
      expect(Number(fish.headers['retry-after'])).toBeGreaterThanOrEqual(1)
      expect(JSON.parse(fish.body)).toEqual({ status: 503, message: expect.stringMatching(/at capacity \(1 of 1 streams speaking, 0 waiting\); retry in \d+ s/) })
    }

    const openai = await post(s, '/v1/audio/speech', { model: 'tts-1', input: LONG, voice: 'tone-a', response_format: 'pcm' })
    expect(openai.status).toBe(503)
    expect(Number(openai.headers['retry-after'])).toBeGreaterThanOrEqual(1)
    expect(JSON.parse(openai.body).error).toMatchObject({ type: 'server_error', code: 'engine_busy', message: expect.stringMatching(/at capacity/) })

    const live = await LiveClient.connect(s.url, s.asAlice)
    live.send({ event: 'start', request: { text: '', reference_id: 'tone-a', format: 'pcm' } })
    live.send({ event: 'text', text: 'hello there.' })
    live.send({ event: 'flush' })
    const { finish, audio } = await live.finish()
    expect(finish).toMatchObject({ event: 'finish', reason: 'error', message: expect.stringMatching(/at capacity.*retry in \d+ s/) })
    expect(audio.length).toBe(0)
    live.ws.close()

    const c = await wyomingClient(wyoming.port)
    c.send('synthesize', { text: LONG, voice: { name: 'tone-a' } })
    const error = await c.next()
    expect(error).toMatchObject({ type: 'error', data: { code: 'engine_busy', text: expect.stringMatching(/at capacity.*retry in/) } })
    c.close()

    const metrics = (await s.app.inject({ method: 'GET', url: '/metrics' })).body
    for (const surface of ['tts', 'sse', 'openai', 'live', 'wyoming']) {
      expect(metrics).toContain(`parla_admission_rejections_total{surface="${surface}"} 1`)
    }
    expect(metrics).toContain('parla_http_requests_total{route="/v1/tts",method="POST",status="503"} 1')

    // A few words (well under the 0.5 s wait of work) on the full node: served beyond the limit, not refused.
    const short = await post(s, '/v1/tts', speak('tone-a'))
    expect(short.status).toBe(200)
    expect(short.body.length).toBeGreaterThan(0)

    held.cut()
    await eventually(() => running(s)).toBe(0)
    const again = await post(s, '/v1/tts', speak('tone-a'))
    expect(again.status).toBe(200)
    expect(again.body.length).toBeGreaterThan(0)
    await eventually(() => running(s)).toBe(0)
  })
})

describe('a full node with a line (fake engines)', () => {
  let s: TestServer
  beforeAll(async () => {
    const engines = fakeEngineRegistry([createFakeEngine('tone'), createFakeEngine('slow', { delayMs: 50 })])
    s = await startTestServer({ maxStreams: 1, admissionQueueLength: 1, admissionWaitSec: 60 }, { ttsEngines: engines })
    await s.listen()
  })
  afterAll(() => s?.close())

  it('lines a stream up and starts it when a place frees; one more than the line holds is turned away at once', async () => {
    const held = await holdStream(s)
    const waiting = post(s, '/v1/tts', speakLong('tone-a'))
    await eventually(() => s.deps.admission.snapshot().queued).toBe(1)
    // The line is full: no wait at all (the line's 60 s would time the test out otherwise).
    const refused = await post(s, '/v1/tts', speakLong('tone-a'))
    expect(refused.status).toBe(503)
    expect(JSON.parse(refused.body).message).toMatch(/1 waiting/)
    held.cut()
    const served = await waiting
    expect(served.status).toBe(200)
    expect(served.body.length).toBeGreaterThan(0)
  })

  it('lets a client that goes away while waiting leave the line', async () => {
    const held = await holdStream(s)
    const gone = request(new URL('/v1/tts', s.url), { method: 'POST', headers: { ...s.asAlice, 'content-type': 'application/json' } })
    gone.on('error', () => {})
    gone.end(JSON.stringify(speakLong('tone-a')))
    await eventually(() => s.deps.admission.snapshot().queued).toBe(1)
    const metrics = async () => (await s.app.inject({ method: 'GET', url: '/metrics' })).body
    const closedByClient = async () => Number(/route="\/v1\/tts",method="POST",status="499"\} (\d+)/.exec(await metrics())?.[1] ?? 0)
    const before = await closedByClient()
    gone.destroy()
    await eventually(() => s.deps.admission.snapshot().queued).toBe(0)
    expect(s.deps.admission.snapshot().running.tts).toBe(1)
    // No server fault: counted as 499 (client closed request), never as a 500.
    await eventually(closedByClient).toBe(before + 1)
    expect(await metrics()).not.toMatch(/status="500"/)
    held.cut()
    await eventually(() => running(s)).toBe(0)
  })
})

describe('a full node (real engine: flite)', () => {
  let s: TestServer
  beforeAll(async () => {
    s = await startTestServer({ maxStreams: 1, admissionQueueLength: 0 })
    await s.listen()
  })
  afterAll(() => s?.close())

  it('counts a live socket as a stream while it speaks, and frees its place when it closes', async () => {
    const live = await LiveClient.connect(s.url, s.asAlice)
    live.send({ event: 'start', request: { text: '', reference_id: 'flite-slt', format: 'pcm' } })
    // About two minutes of speech: the socket speaks (its client has audio to play) for the whole test.
    live.send({ event: 'text', text: `${words(400)}.` })
    live.send({ event: 'flush' })
    await live.waitFor((r) => r.frame.event === 'audio')
    expect(s.deps.admission.snapshot().running.live).toBe(1)

    const refused = await post(s, '/v1/tts', speakLong('flite-slt'))
    expect(refused.status).toBe(503)
    expect(refused.headers['retry-after']).toMatch(/^\d+$/)

    live.ws.close()
    await eventually(() => running(s)).toBe(0)
    const served = await post(s, '/v1/tts', speak('flite-slt'))
    expect(served.status).toBe(200)
    // 16-bit pcm: about a second of speech at least.
    expect(served.body.length).toBeGreaterThan(16_000)
  })
})

describe('/metrics', () => {
  let s: TestServer
  beforeAll(async () => {
    s = await startTestServer({ metricsToken: 's3cret' }, { ttsEngines: fakeEngineRegistry([createFakeEngine('tone')]) })
  })
  afterAll(() => s?.close())

  it('needs the metricsToken when one is set', async () => {
    expect((await s.app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(401)
    const wrong = await s.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer s3cre' } })
    expect(wrong.json()).toEqual({ status: 401, message: "/metrics needs 'Authorization: Bearer <metricsToken>'" })
    const ok = await s.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer s3cret' } })
    expect(ok.statusCode).toBe(200)
    expect(ok.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/)
  })
})

describe('/metrics after real requests (flite)', () => {
  let s: TestServer
  beforeAll(async () => {
    s = await startTestServer()
    await s.listen()
  })
  afterAll(() => s?.close())

  it('counts requests by route and status, first audio by surface, and reports engines, lines and the process', async () => {
    expect((await post(s, '/v1/tts', speak('flite-slt'))).status).toBe(200)
    expect((await post(s, '/v1/tts', { ...speak('flite-slt'), reference_id: 'nobody' })).status).toBe(404)
    const live = await LiveClient.connect(s.url, s.asAlice)
    await live.speak({ reference_id: 'flite-slt', format: 'pcm' }, 'hello there.')
    const text = (await s.app.inject({ method: 'GET', url: '/metrics' })).body
    expect(text).toContain('parla_http_requests_total{route="/v1/tts",method="POST",status="200"} 1')
    expect(text).toContain('parla_http_requests_total{route="/v1/tts",method="POST",status="404"} 1')
    expect(text).toMatch(/parla_http_request_duration_seconds_count\{route="\/v1\/tts",method="POST",status="200"\} 1/)
    expect(text).toContain('parla_first_audio_seconds_count{surface="tts"} 1')
    expect(text).toContain('parla_first_audio_seconds_count{surface="live"} 1')
    expect(text).toContain('parla_live_sockets_open 1')
    expect(text).toMatch(/parla_engine_workers\{engine="flite",state="idle"\} [1-9]/)
    expect(text).toContain('parla_engine_queued{engine="flite"} 0')
    expect(text).toContain('parla_asr_requests{state="queued"} 0')
    expect(text).toMatch(/parla_admission_limit\{kind="streams"\} [1-9]/)
    expect(text).toMatch(/parla_process_resident_memory_bytes [1-9]/)
    expect(text).toContain('# TYPE parla_quota_rejections_total counter')
    live.ws.close()
    await eventually(async () => (await s.app.inject({ method: 'GET', url: '/metrics' })).body).toContain('parla_live_sockets_open 0')
  })

  it('answers loopback clients only when no metricsToken is set', async () => {
    const remote = await s.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '192.0.2.7' })
    expect(remote.statusCode).toBe(403)
    expect(remote.json().message).toMatch(/loopback clients only; set metricsToken/)
  })
})
