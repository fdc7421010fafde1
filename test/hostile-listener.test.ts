import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestServer, type TestServer } from './helpers/app.js'
import { openRaw, rawRequest, readAnswer, type RawAnswer } from './helpers/raw-http.js'

/** Every non-2xx answer of the listener: JSON `{status, message}` and nothing else. */
function expectShaped(a: RawAnswer, status: number, message: RegExp): void {
  expect(a.status, a.body).toBe(status)
  expect(a.headers['content-type']).toMatch(/^application\/json/)
  const body = JSON.parse(a.body) as Record<string, unknown>
  expect(Object.keys(body).sort()).toEqual(['message', 'status'])
  expect(body.status).toBe(status)
  expect(body.message).toMatch(message)
}

const head = (s: TestServer, path: string, extra = '') =>
  `POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${s.alice}\r\n${extra}`

describe('answers the listener gives before any route (raw sockets)', () => {
  let s: TestServer
  let url: string
  beforeAll(async () => {
    s = await startTestServer({ headersTimeoutSec: 1, bodyIdleTimeoutSec: 1, bodyTimeoutSec: 3 })
    url = await s.listen()
  })
  afterAll(async () => s.close())

  it('garbage instead of a request line is a shaped 400', async () => {
    const a = await rawRequest(url, 'GARBAGE\r\n\r\n')
    expectShaped(a, 400, /not valid HTTP\/1\.1/)
    expect(a.closedByServer).toBe(true)
  })

  it.each([
    ['a URL', (s: TestServer) => `GET /model?q=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${s.alice}\r\n\r\n`],
    ['a header', (_s: TestServer) => `GET /model HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`],
  ])('%s over 16 KB is a shaped 431', async (_, request) => {
    expectShaped(await rawRequest(url, request(s)), 431, /over 16384 bytes/)
  })

  it('headers that never finish get a shaped 408 and the connection closed', async () => {
    const a = await rawRequest(url, `POST /v1/tts HTTP/1.1\r\nHost: x\r\n`)
    expectShaped(a, 408, /headers did not arrive within 1 s/)
    expect(a.closedByServer).toBe(true)
  })

  it('an Expect other than 100-continue is a shaped 417', async () => {
    const a = await rawRequest(url, head(s, '/v1/tts', 'Expect: 200-ok\r\nContent-Type: application/json\r\nContent-Length: 14\r\n\r\n{"text":"Hi"}'))
    expectShaped(a, 417, /'Expect: 200-ok' cannot be met/)
  })

  it('GET /v1/tts/live without an upgrade is a shaped 426 saying how to connect', async () => {
    const a = await rawRequest(url, `GET /v1/tts/live HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${s.alice}\r\nConnection: close\r\n\r\n`)
    expectShaped(a, 426, /WebSocket endpoint.*Upgrade: websocket/)
    expect(a.headers.upgrade).toBe('websocket')
  })

  it.each([
    ['a JSON body that stops after its start', (s: TestServer) => head(s, '/v1/tts', 'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"text":')],
    ['a chunked body announcing 2^64-1 bytes', (s: TestServer) => head(s, '/v1/tts', 'Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffff\r\n{"te')],
    ['a multipart ASR upload that stops', (s: TestServer) => head(s, '/v1/asr', 'Content-Type: multipart/form-data; boundary=b\r\nContent-Length: 100000\r\n\r\n--b\r\nContent-Disposition: form-data; name="audio"; filename="a.wav"\r\n\r\nRIFF')],
    ['a MessagePack body that stops', (s: TestServer) => head(s, '/v1/tts', 'Content-Type: application/msgpack\r\nContent-Length: 50\r\n\r\n\x81')],
    ['a body refused unread (no key) that stops', () => 'POST /v1/tts HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{'],
  ])('%s is closed after the body idle time, with a shaped 408 if nothing was answered yet', async (name, request) => {
    const a = await rawRequest(url, request(s))
    expect(a.closedByServer).toBe(true)
    if (name.includes('refused')) expectShaped(a, 401, /Authorization/)
    else expectShaped(a, 408, /stopped arriving: no data for 1 s/)
  })

  it('a body that trickles in (never idle) is cut at the whole-request limit with a shaped 408', async () => {
    const socket = await openRaw(url)
    const answer = readAnswer(socket)
    socket.write(head(s, '/v1/tts', 'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"text":"'))
    const trickle = setInterval(() => socket.writable && socket.write('a'), 200)
    const a = await answer
    clearInterval(trickle)
    expectShaped(a, 408, /body did not arrive within 3 s/)
  })

  it('a response stream read slowly is not cut by the receive limits', async () => {
    const text = Array.from({ length: 8 }, (_, i) => `This is sentence ${i + 1} of a slow reader's answer.`).join(' ')
    const body = JSON.stringify({ text, format: 'pcm', sample_rate: 16000 })
    const socket = await openRaw(url)
    const answer = readAnswer(socket)
    socket.write(head(s, '/v1/tts', `Content-Type: application/json\r\nConnection: close\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`))
    // Longer than every receive limit (1 s headers, 1 s idle, 3 s whole request) before reading anything.
    socket.pause()
    await new Promise((r) => setTimeout(r, 4500))
    socket.resume()
    const a = await answer
    expect(a.status).toBe(200)
    // 8 sentences of 16 kHz 16-bit speech (well over 10 s), to the chunked terminator.
    expect(a.headers['transfer-encoding']).toBe('chunked')
    expect(a.bytes.length / 2 / 16000).toBeGreaterThan(10)
  })
})

describe('stalled uploads do not starve other requests', () => {
  let s: TestServer
  let url: string
  beforeAll(async () => {
    s = await startTestServer({ bodyIdleTimeoutSec: 120 })
    url = await s.listen()
  })
  afterAll(async () => s.close())

  it('200 concurrent stalled uploads: a normal TTS request is served while they are all still open', async () => {
    const stalled = await Promise.all(Array.from({ length: 200 }, async (_, i) => {
      const socket = await openRaw(url)
      socket.on('error', () => {})
      const closed = { value: false }
      socket.on('close', () => (closed.value = true))
      socket.write(i % 2 === 0
        ? head(s, '/v1/asr', 'Content-Type: multipart/form-data; boundary=b\r\nContent-Length: 20000000\r\n\r\n--b\r\nContent-Disposition: form-data; name="audio"; filename="a.wav"\r\n\r\nRIFF')
        : head(s, '/v1/tts', 'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"text":"'))
      return { socket, closed }
    }))
    const res = await fetch(`${url}/v1/tts`, {
      method: 'POST',
      headers: { ...s.asAlice, 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'Still serving.', format: 'wav' }),
    })
    expect(res.status).toBe(200)
    expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(10_000)
    expect(stalled.filter((c) => c.closed.value)).toHaveLength(0)
    for (const c of stalled) c.socket.destroy()
  })
})
