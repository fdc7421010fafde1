import { encode } from '@msgpack/msgpack'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import WebSocket from 'ws'
import { HIGH_WATER_BYTES } from '../src/api/fish/live.js'
import { ffmpegDecode } from './support/audio.js'
import type { FestivalEngine } from '../src/engines/tts/festival/index.js'
import { startTestServer, type TestServer } from './helpers/app.js'
import { LiveClient } from './helpers/live.js'

const PCM = { format: 'pcm', sample_rate: 16000 }
const seconds16k = (pcm: Buffer) => pcm.length / 2 / 16000
const LONG = Array.from({ length: 30 }, (_, i) => `This is sentence number ${i + 1}, which is part of a rather long text.`).join(' ')

describe('WebSocket /v1/tts/live (raw ws client)', () => {
  let s: TestServer
  let url: string
  const clients: LiveClient[] = []
  const connect = async (headers: Record<string, string> = s.asAlice) => {
    const c = await LiveClient.connect(url, headers)
    clients.push(c)
    return c
  }
  const festival = async () => (await s.deps.speech.engines.get('festival')) as FestivalEngine
  /** Waits until festival is working: it takes a process per sentence, so there are gaps. */
  const untilFestivalBusy = async () => {
    const f = await festival()
    await expect.poll(() => f.processIds().busy.length, { timeout: 120_000, interval: 1 }).toBeGreaterThan(0)
    return f.processIds().busy.length
  }
  beforeAll(async () => {
    s = await startTestServer()
    url = await s.listen()
  })
  afterEach(async () => {
    // Every frame any test received was a binary MessagePack map with an "event" key.
    for (const c of clients) {
      expect(c.malformed).toEqual([])
      expect(c.received.every((r) => r.binary && typeof r.frame.event === 'string')).toBe(true)
    }
    await Promise.all(clients.splice(0).map((c) => c.close()))
  })
  afterAll(async () => s.close())

  it('flush: audio for the buffered text arrives without stop; stop then finishes', async () => {
    const c = await connect()
    c.send({ event: 'start', request: { text: '', ...PCM } })
    for (const w of ['Hello ', 'there ', 'my ', 'good ', 'friend']) c.send({ event: 'text', text: w })
    // No sentence end yet: nothing is spoken until the flush.
    await new Promise((r) => setTimeout(r, 300))
    expect(c.received).toEqual([])
    c.send({ event: 'flush' })
    await c.waitFor((r) => r.frame.event === 'audio')
    await c.waitFor((r) => r.frame.event === 'audio' && seconds16k(c.audio()) > 1)
    expect(c.received.some((r) => r.frame.event === 'finish')).toBe(false)
    c.send({ event: 'stop' })
    const { finish, audio } = await c.finish()
    expect(finish).toEqual({ event: 'finish', reason: 'stop' })
    expect(seconds16k(audio)).toBeGreaterThan(1)
  })

  it('the same socket starts again after finish (reuse), with another format', async () => {
    const c = await connect()
    const first = await c.speak(PCM, 'First utterance on this socket.')
    expect(first.finish.reason).toBe('stop')
    const second = await c.speak({ format: 'wav' }, 'Second utterance, same socket.')
    expect(second.finish.reason).toBe('stop')
    expect(second.audio.subarray(0, 4).toString()).toBe('RIFF')
    const decoded = await ffmpegDecode(second.audio)
    expect(decoded.length / 44100).toBeGreaterThan(1)
    expect(c.closed).toBeUndefined()
  })

  it.each([
    ['not MessagePack', (c: LiveClient) => c.ws.send(Buffer.from([0xc1, 0x00])), /not valid MessagePack/],
    ['a text frame', (c: LiveClient) => c.ws.send(JSON.stringify({ event: 'start', request: {} })), /binary MessagePack maps, not text frames/],
    ['not a map', (c: LiveClient) => c.ws.send(encode(['start'])), /MessagePack map with an "event" key/],
    ['an unknown event', (c: LiveClient) => c.send({ event: 'speak', text: 'hi' }), /unknown event "speak"/],
    ['text before start', (c: LiveClient) => c.send({ event: 'text', text: 'hi' }), /"text" before "start"/],
    ['flush before start', (c: LiveClient) => c.send({ event: 'flush' }), /"flush" before "start"/],
    ['chunk_length 5', (c: LiveClient) => c.send({ event: 'start', request: { text: '', chunk_length: 5 } }), /invalid start request: chunk_length/],
    ['format "flac"', (c: LiveClient) => c.send({ event: 'start', request: { text: '', format: 'flac' } }), /invalid start request: format/],
    ['an unknown reference_id', (c: LiveClient) => c.send({ event: 'start', request: { text: '', reference_id: 'nobody' } }), /Voice model 'nobody' not found/],
    ['text that is not a string', (c: LiveClient) => (c.send({ event: 'start', request: PCM }), c.send({ event: 'text', text: 5 })), /"text" as a string/],
    ['start while running', (c: LiveClient) => (c.send({ event: 'start', request: PCM }), c.send({ event: 'start', request: PCM })), /"start" while an utterance is running/],
    ['debug "yes"', (c: LiveClient) => c.send({ event: 'start', request: PCM, debug: 'yes' }), /"debug" must be true or false/],
  ])('a bad frame (%s) gets finish/error saying what was wrong; the socket stays usable', async (_, bad, message) => {
    const c = await connect()
    bad(c)
    const { finish } = await c.finish()
    expect(finish).toEqual({ event: 'finish', reason: 'error', message: expect.stringMatching(message) })
    const again = await c.speak(PCM, 'Still working.')
    expect(again.finish).toEqual({ event: 'finish', reason: 'stop' })
    expect(seconds16k(again.audio)).toBeGreaterThan(0.4)
  })

  it('text after stop is an error; a second stop is ignored', async () => {
    const c = await connect()
    c.send({ event: 'start', request: PCM })
    c.send({ event: 'text', text: 'One sentence.' })
    c.send({ event: 'stop' })
    c.send({ event: 'stop' })
    const { finish } = await c.finish()
    expect(finish.reason).toBe('stop')
    expect(c.received.filter((r) => r.frame.event === 'finish')).toHaveLength(1)
    c.send({ event: 'start', request: PCM })
    c.send({ event: 'stop' })
    c.send({ event: 'text', text: 'late' })
    const late = await c.finish(c.received.length)
    // The stop with no text may finish before the late text is read; either way the late text is refused or unused.
    expect(['error', 'stop']).toContain(late.finish.reason)
  })

  it.each([
    ['no Authorization header', {}],
    ['a wrong key', { authorization: 'Bearer not-a-key' }],
    ['a malformed header', { authorization: 'Token abc' }],
  ])('the upgrade with %s is answered 401 before upgrading', async (_, headers) => {
    const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/v1/tts/live`, { headers })
    ws.on('error', () => {})
    const res = await new Promise<{ status: number; body: string; type: string }>((resolve, reject) => {
      ws.once('open', () => reject(new Error('upgraded')))
      ws.once('unexpected-response', (req, r) => {
        let body = ''
        r.on('data', (d: Buffer) => (body += d))
        r.on('end', () => {
          resolve({ status: r.statusCode!, body, type: String(r.headers['content-type']) })
          req.destroy()
        })
      })
    })
    expect(res.status).toBe(401)
    expect(res.type).toMatch(/^application\/json/)
    expect(JSON.parse(res.body)).toEqual({ status: 401, message: expect.any(String) })
  })

  it.each([['missing', undefined], ['s1', 's1'], ['s2-pro', 's2-pro'], ['speech-1.5', 'speech-1.5'], ['unknown', 'no-such-model']])(
    'the model header %s is accepted',
    async (_, model) => {
      const c = await connect(model ? { ...s.asAlice, model } : s.asAlice)
      const { finish, audio } = await c.speak(PCM, 'Hello model.')
      expect(finish.reason).toBe('stop')
      expect(seconds16k(audio)).toBeGreaterThan(0.4)
    },
  )

  it('with debug, log frames say how the language was decided, before that text\'s audio; without, none', async () => {
    const c = await connect()
    const from = c.received.length
    c.send({ event: 'start', request: PCM, debug: true })
    c.send({ event: 'text', text: 'Lincoln delivered the Gettysburg Address in 1863. ' })
    c.send({ event: 'flush' })
    await c.waitFor((r) => r.frame.event === 'audio', from)
    c.send({ event: 'text', text: 'Guten Tag, wie geht es Ihnen heute? Mir geht es sehr gut, danke. ' })
    c.send({ event: 'text', text: 'Ich habe heute keine Zeit für dich, aber morgen gerne wieder. ' })
    c.send({ event: 'stop' })
    const { finish, index } = await c.finish(from)
    expect(finish).toEqual({ event: 'finish', reason: 'stop' })
    const frames = c.received.slice(from, index).map((r) => r.frame)
    const logs = frames.flatMap((f, i) => (f.event === 'log' ? [{ i, message: f.message }] : []))
    // The English default (nothing else likely), then German once the session's text is German.
    expect(logs[0]).toEqual({ i: 0, message: expect.stringMatching(/^language en; confidence=0\.9\d; reason=default$/) })
    expect(logs.at(-1)?.message).toMatch(/^language de; confidence=[01]\.\d\d; reason=statistics$/)
    expect(logs.at(-1)!.i).toBeLessThan(frames.length - 1)
    expect(frames.every((f) => f.event === 'audio' || f.event === 'log')).toBe(true)
    // The same session without debug: audio only.
    const quiet = await c.speak(PCM, 'Lincoln delivered the Gettysburg Address in 1863.')
    expect(c.received.slice(index + 1, quiet.index).every((r) => r.frame.event === 'audio')).toBe(true)
  })

  it('finish never arrives in the same tick as the last audio frame', async () => {
    const c = await connect()
    for (const format of ['pcm', 'mp3', 'opus']) {
      const from = c.received.length
      const { index } = await c.speak({ format }, 'Short and sweet. Another one.')
      expect(c.received[index - 1]!.frame.event).toBe('audio')
      expect(c.received[index]!.sameTick).toBe(false)
      expect(index - from).toBeGreaterThan(1)
    }
  })

  it('answers pings promptly while generating', async () => {
    const c = await connect()
    c.send({ event: 'start', request: PCM })
    c.send({ event: 'text', text: LONG })
    c.send({ event: 'flush' })
    await c.waitFor((r) => r.frame.event === 'audio')
    const rtts: number[] = []
    const audioBefore = c.received.length
    for (let i = 0; i < 10; i++) {
      const sent = performance.now()
      await new Promise<void>((resolve) => {
        c.ws.once('pong', () => resolve())
        c.ws.ping()
      })
      rtts.push(performance.now() - sent)
      await new Promise((r) => setTimeout(r, 30))
    }
    // Audio kept flowing during the pings: generation was going on.
    expect(c.received.length).toBeGreaterThan(audioBefore)
    expect(c.received.some((r) => r.frame.event === 'finish')).toBe(false)
    expect(Math.max(...rtts)).toBeLessThan(250)
  })

  it('a client that reads slowly holds the server to a bounded buffer; all audio arrives once it reads', async () => {
    const c = await connect()
    // 48 kHz wav: about 96 kB per second of speech, so the kernel's socket buffers fill within seconds.
    const text = LONG
    c.ws.pause()
    c.send({ event: 'start', request: { format: 'wav', sample_rate: 48000 } })
    c.send({ event: 'text', text })
    c.send({ event: 'stop' })
    const server = [...s.app.websocketServer.clients][0]!
    let most = 0
    const started = performance.now()
    // Wait until the server-side socket buffer is near its bound, then watch it for a while.
    while (most < HIGH_WATER_BYTES / 2 && performance.now() - started < 60_000) {
      most = Math.max(most, server.bufferedAmount)
      await new Promise((r) => setTimeout(r, 5))
    }
    expect(most).toBeGreaterThanOrEqual(HIGH_WATER_BYTES / 2)
    const watchUntil = performance.now() + 1000
    while (performance.now() < watchUntil) {
      most = Math.max(most, server.bufferedAmount)
      await new Promise((r) => setTimeout(r, 5))
    }
    // One frame (at most half a second of audio) may go out above the mark.
    expect(most).toBeLessThan(HIGH_WATER_BYTES + 48000 * 2)
    c.ws.resume()
    const { finish, audio } = await c.finish(0, 120_000)
    expect(finish.reason).toBe('stop')
    const decoded = await ffmpegDecode(audio)
    // All of it: 30 sentences of about 3 s each.
    expect(decoded.length / 48000).toBeGreaterThan(80)
  })

  it('a client that disconnects mid-generation stops synthesis: festival goes idle and stays so', async () => {
    const f = await festival()
    const calls = vi.spyOn(f, 'synthesize')
    try {
      const c = await connect()
      c.send({ event: 'start', request: PCM })
      c.send({ event: 'text', text: LONG })
      c.send({ event: 'flush' })
      await c.waitFor((r) => r.frame.event === 'audio')
      expect(await untilFestivalBusy()).toBeGreaterThan(0)
      c.ws.terminate()
      await expect.poll(() => f.processIds().busy, { timeout: 120_000, interval: 2 }).toEqual([])
      // It stays stopped: after a pause, festival got no new text (a pipeline that went on would keep it busy).
      const started = calls.mock.calls.length
      await new Promise((r) => setTimeout(r, 300))
      expect(f.processIds().busy).toEqual([])
      expect(calls.mock.calls.length).toBe(started)
    } finally {
      calls.mockRestore()
    }
  })
})

describe('WebSocket /v1/tts/live idle timeout', () => {
  let s: TestServer
  let url: string
  beforeAll(async () => {
    s = await startTestServer({ liveIdleTimeoutSec: 1 })
    url = await s.listen()
  })
  afterAll(async () => s.close())

  it('closes a socket with no frames after the timeout; an open utterance gets finish/error first', async () => {
    const quiet = await LiveClient.connect(url, s.asAlice)
    const opened = performance.now()
    await quiet.waitFor(() => false, 0, 120_000).catch(() => {})
    expect(quiet.closed).toEqual({ code: 1000, reason: 'idle timeout' })
    expect(performance.now() - opened).toBeGreaterThan(900)

    const started = await LiveClient.connect(url, s.asAlice)
    started.send({ event: 'start', request: PCM })
    const { finish } = await started.finish(0, 120_000)
    expect(finish).toEqual({ event: 'finish', reason: 'error', message: expect.stringMatching(/no frame for 1 s/) })
    await started.waitFor(() => false, 0, 120_000).catch(() => {})
    expect(started.closed?.code).toBe(1000)
  })

  it('a client that reads nothing for the whole timeout while audio waits is closed', async () => {
    const c = await LiveClient.connect(url, s.asAlice)
    c.ws.pause()
    c.send({ event: 'start', request: { format: 'wav', sample_rate: 48000 } })
    c.send({ event: 'text', text: LONG })
    c.send({ event: 'stop' })
    const server = [...s.app.websocketServer.clients].at(-1)!
    const closed = new Promise<number>((resolve) => server.once('close', () => resolve(performance.now())))
    let stalledAt = 0
    while (!stalledAt && server.readyState === server.OPEN) {
      if (server.bufferedAmount > HIGH_WATER_BYTES) stalledAt = performance.now()
      await new Promise((r) => setTimeout(r, 5))
    }
    expect(stalledAt).toBeGreaterThan(0)
    // Dropped about a second (the timeout) after it stopped reading, not after the 30 s closing handshake.
    expect((await closed) - stalledAt).toBeLessThan(3000)
    c.ws.terminate()
  })

  it('a generation longer than the timeout is not cut off: synthesis under way is not idleness', async () => {
    const c = await LiveClient.connect(url, s.asAlice)
    const began = performance.now()
    const { finish, audio } = await c.speak({ ...PCM, prosody: { speed: 0.5 } }, LONG.split('. ').slice(0, 12).join('. '))
    expect(finish.reason).toBe('stop')
    expect(performance.now() - began).toBeGreaterThan(1000)
    expect(seconds16k(audio)).toBeGreaterThan(60)
    await c.close()
  })
})
