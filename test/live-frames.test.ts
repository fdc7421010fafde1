import { encode } from '@msgpack/msgpack'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { startTestServer, type TestServer } from './helpers/app.js'
import { LiveClient } from './helpers/live.js'
import { parseLiveFrame } from '../src/api/fish/live-frames.js'

const PCM = { format: 'pcm', sample_rate: 16000 }

describe('live socket: frames validated, close codes that say why', () => {
  let s: TestServer
  let url: string
  const clients: LiveClient[] = []
  const connect = async () => {
    const c = await LiveClient.connect(url, s.asAlice)
    clients.push(c)
    return c
  }
  const closed = (c: LiveClient) => new Promise<{ code: number; reason: string }>((resolve) => {
    if (c.closed) return resolve(c.closed)
    c.ws.once('close', (code, reason) => resolve({ code, reason: String(reason) }))
  })
  beforeAll(async () => {
    s = await startTestServer({ maxBodyBytes: 64 * 1024 })
    url = await s.listen()
  })
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()))
  })
  afterAll(async () => s.close())

  it.each([
    ['an array', [1], /"request" must be a map of TTS options .*got an array/],
    ['binary data', new Uint8Array([1, 2, 3]), /got binary data/],
    ['a string', 'hello', /got string/],
    ['nil', null, /got nil/],
    ['missing', 'omit', /got nothing/],
  ])('start with request as %s is refused with finish/error; the socket stays usable', async (_, request, message) => {
    const c = await connect()
    c.send(request === 'omit' ? { event: 'start' } : { event: 'start', request })
    const { finish } = await c.finish()
    expect(finish).toEqual({ event: 'finish', reason: 'error', message: expect.stringMatching(message) })
    // A stop that follows is "stop before start", not a normal finish of the refused request.
    c.send({ event: 'stop' })
    const after = await c.finish(c.received.length)
    expect(after.finish.message).toMatch(/"stop" before "start"/)
    const again = await c.speak(PCM, 'Still working.')
    expect(again.finish).toEqual({ event: 'finish', reason: 'stop' })
  })

  it('unknown fields of start.request are ignored, as on /v1/tts', async () => {
    const c = await connect()
    const { finish, audio } = await c.speak({ ...PCM, model_id: 'x', something_else: [1, 2] }, 'Hello there.')
    expect(finish).toEqual({ event: 'finish', reason: 'stop' })
    expect(audio.length / 2 / 16000).toBeGreaterThan(0.3)
  })

  it('text with nothing to speak ends the utterance with the same message /v1/tts gives in its 422', async () => {
    const http = await s.app.inject({ method: 'POST', url: '/v1/tts', headers: s.asAlice, payload: { text: ')', ...PCM } })
    expect(http.statusCode).toBe(422)
    const [{ msg: message }] = http.json() as [{ msg: string }]
    const c = await connect()
    const { finish, audio } = await c.speak(PCM, ') ... \ud800')
    expect(finish).toEqual({ event: 'finish', reason: 'error', message })
    expect(audio.length).toBe(0)
  })

  it('an utterance with no text at all (start, then stop) finishes quietly with no audio', async () => {
    const c = await connect()
    const { finish, audio } = await c.speak(PCM, '')
    expect(finish).toEqual({ event: 'finish', reason: 'stop' })
    expect(audio.length).toBe(0)
  })

  it('a frame over the size limit closes the socket with 1009', async () => {
    const c = await connect()
    c.ws.send(encode({ event: 'text', text: 'a'.repeat(100 * 1024) }))
    expect(await closed(c)).toEqual({ code: 1009, reason: 'message over 65536 bytes; send smaller messages' })
  })

  it('a message far over the limit, still being sent when the server refuses it, closes with 1009 too, not 1006', async () => {
    // 8 MB against a 64 KB limit: ws refuses it from the frame header while the client is still writing, and the
    // close frame must reach the client rather than the socket being cut under it.
    const c = await connect()
    c.ws.send(encode({ event: 'text', text: 'a'.repeat(8 * 1024 * 1024) }))
    expect(await closed(c)).toEqual({ code: 1009, reason: 'message over 65536 bytes; send smaller messages' })
  })

  it('16 invalid frames in a row close the socket with 1008, each answered first', async () => {
    const c = await connect()
    for (let i = 0; i < 16; i++) c.ws.send(Buffer.from([0xc1]))
    expect((await closed(c)).code).toBe(1008)
    expect(c.received.filter((r) => r.frame.event === 'finish')).toHaveLength(16)
  })

  it('a valid frame resets the count of invalid ones', async () => {
    const c = await connect()
    const finishes = () => c.received.filter((r) => r.frame.event === 'finish').length
    const bad = async (n: number) => {
      const before = finishes()
      for (let i = 0; i < n; i++) c.ws.send(Buffer.from([0xc1]))
      await c.waitFor(() => finishes() === before + n)
    }
    await bad(15)
    expect((await c.speak(PCM, 'One.')).finish).toEqual({ event: 'finish', reason: 'stop' })
    await bad(15)
    expect((await c.speak(PCM, 'Still here.')).finish).toEqual({ event: 'finish', reason: 'stop' })
    expect(c.closed).toBeUndefined()
  })
})

describe('live socket: the start frame\'s debug flag', () => {
  const start = (frame: Record<string, unknown>) => parseLiveFrame(Buffer.from(encode({ event: 'start', ...frame })), true)

  it('is read beside the request or inside it, and is off when absent or nil', () => {
    expect(start({ request: { text: '' }, debug: true })).toMatchObject({ event: 'start', debug: true })
    expect(start({ request: { text: '', debug: true } })).toMatchObject({ event: 'start', debug: true })
    expect(start({ request: { text: '' } })).toMatchObject({ event: 'start', debug: false })
    expect(start({ request: { text: '' }, debug: null })).toMatchObject({ event: 'start', debug: false })
    expect(start({ request: { text: '' }, debug: false })).toMatchObject({ event: 'start', debug: false })
  })

  it('is refused when it is not a boolean, wherever it is', () => {
    expect(() => start({ request: { text: '' }, debug: 1 })).toThrow(/"debug" must be true or false/)
    expect(() => start({ request: { text: '', debug: 'yes' } })).toThrow(/"debug" must be true or false/)
  })
})
