/**
 * Agent frameworks' WebSocket behaviour replayed as their source shows it (issue 11), with the socket
 * lifetimes scaled down: the idle timeout is 1 s here (300 s by default) and the server pings every 0.2 s.
 *  - LiveKit Agents: one pooled socket, aiohttp heartbeat pings (every 30 s of 300: every 0.1 s here), header
 *    `model: s2.1-pro`, a full `start` per reply with `features: ["quality-guard"]` and its default cloud
 *    voice, each sentence as "<sentence> " + flush, then stop; barge-in closes the socket without stop.
 *  - Pipecat: websockets pings, one start per connection, per sentence text + flush, a trailing flush,
 *    never stop; frames of 1,024 bytes or less are dropped by the client.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { startTestServer, type TestServer } from './helpers/app.js'
import { LiveClient } from './helpers/live.js'

const IDLE_SEC = 1
const LIVEKIT_START = {
  text: '', chunk_length: 100, format: 'wav', sample_rate: 24000, mp3_bitrate: 64, opus_bitrate: 64000, references: [],
  reference_id: '933563129e564b19a115bedd57b7406a', normalize: true, latency: 'balanced', prosody: null, top_p: 0.7,
  temperature: 0.7, features: ['quality-guard'],
}
const PIPECAT_START = { text: '', sample_rate: 24000, latency: 'balanced', format: 'pcm', normalize: true, prosody: { speed: 1.0, volume: 0 }, reference_id: null }
const REPLY = ['Sure, I can help with that.', 'Your order ships on Friday.']

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
/** Client heartbeat: a ping every `ms`, as aiohttp and websockets send them; returns a stop function. */
const heartbeat = (c: LiveClient, ms: number) => {
  const timer = setInterval(() => c.ws.readyState === WebSocket.OPEN && c.ws.ping(), ms)
  return () => clearInterval(timer)
}

/** One LiveKit reply on a pooled socket: start, each sentence + " " and flush, stop; resolves at finish. */
async function livekitReply(c: LiveClient) {
  const from = c.received.length
  c.send({ event: 'start', request: LIVEKIT_START })
  for (const sentence of REPLY) {
    c.send({ event: 'text', text: `${sentence} ` })
    c.send({ event: 'flush' })
  }
  c.send({ event: 'stop' })
  return c.finish(from)
}

describe('agent frameworks on /v1/tts/live', () => {
  let s: TestServer
  let url: string
  beforeAll(async () => {
    s = await startTestServer({ liveIdleTimeoutSec: IDLE_SEC, livePingIntervalSec: 0.2 })
    url = await s.listen()
  })
  afterAll(async () => s.close())

  it('LiveKit: a pooled socket that pings and stays silent for twice the idle timeout speaks the next reply on it', async () => {
    const c = await LiveClient.connect(url, { ...s.asAlice, model: 's2.1-pro' })
    const stop = heartbeat(c, 100)
    try {
      const first = await livekitReply(c)
      expect(first.finish).toEqual({ event: 'finish', reason: 'stop' })
      expect(first.audio.subarray(0, 4).toString('latin1')).toBe('RIFF')
      expect(first.audio.readUInt16LE(34)).toBe(16)
      expect(first.audio.readUInt32LE(24)).toBe(24000)
      // Silent (pings only) for twice the idle timeout, as 10 minutes are to the default 300 s.
      await sleep(2 * IDLE_SEC * 1000 + 500)
      expect(c.closed).toBeUndefined()
      const next = await livekitReply(c)
      expect(next.finish).toEqual({ event: 'finish', reason: 'stop' })
      expect(next.audio.length).toBeGreaterThan(24_000)
      expect(c.closed).toBeUndefined()
    } finally {
      stop()
      await c.close()
    }
  })

  it('without client pings the same silence ends in the idle close: the server\'s own pings do not count', async () => {
    const c = await LiveClient.connect(url, { ...s.asAlice, model: 's2.1-pro' })
    await livekitReply(c)
    await c.waitFor(() => false, c.received.length, 4 * IDLE_SEC * 1000).catch(() => {})
    expect(c.closed).toEqual({ code: 1000, reason: 'idle timeout' })
  })

  it('a peer that stops answering pings is dropped before the idle timeout', async () => {
    const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/v1/tts/live`, { headers: s.asAlice, autoPong: false })
    const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)))
    await new Promise((resolve) => ws.once('open', resolve))
    // 1006: the connection was cut (terminated), not closed with the idle timeout's 1000.
    expect(await closed).toBe(1006)
  })

  it('LiveKit barge-in: closing without stop ends the reply; a new pooled socket speaks', async () => {
    const c = await LiveClient.connect(url, { ...s.asAlice, model: 's2.1-pro' })
    c.send({ event: 'start', request: LIVEKIT_START })
    c.send({ event: 'text', text: 'This is a long answer that the user interrupts halfway through, so it never ends. ' })
    c.send({ event: 'flush' })
    await c.waitFor((r) => r.frame.event === 'audio')
    c.ws.terminate()
    const again = await LiveClient.connect(url, { ...s.asAlice, model: 's2.1-pro' })
    expect((await livekitReply(again)).finish).toEqual({ event: 'finish', reason: 'stop' })
    await again.close()
  })

  it('Pipecat: per-sentence text + flush, a trailing flush, pings through the bot\'s silence, no frame small enough to drop', async () => {
    const c = await LiveClient.connect(url, { ...s.asAlice, model: 's2-pro' })
    const stop = heartbeat(c, 100)
    try {
      // A telephony pipeline's rate: the first block of a unit is under 1 KiB here.
      c.send({ event: 'start', request: { ...PIPECAT_START, sample_rate: 8000 } })
      const bytes = { kept: 0, dropped: 0 }
      for (let turn = 0; turn < 2; turn++) {
        const from = c.received.length
        for (const sentence of REPLY) {
          c.send({ event: 'text', text: sentence })
          c.send({ event: 'flush' })
        }
        c.send({ event: 'flush' })
        // Audio for the whole reply: at least a second of 8 kHz 16-bit samples.
        while (c.audio(from).length < 16_000) await c.waitFor(() => true, c.received.length)
        await sleep(500)
        for (const r of c.received.slice(from)) {
          if (r.frame.event !== 'audio') continue
          const n = (r.frame.audio as Uint8Array).length
          bytes[n > 1024 ? 'kept' : 'dropped'] += n
        }
        expect(c.received.slice(from).some((r) => r.frame.event === 'finish')).toBe(false)
        // The bot is silent between turns; its pings keep the socket.
        if (turn === 0) await sleep(2 * IDLE_SEC * 1000 + 500)
        expect(c.closed).toBeUndefined()
      }
      // Small pieces (a resampler's tail) are held for the next frame, or padded when nothing follows.
      expect(bytes.dropped).toBe(0)
      expect(bytes.kept).toBeGreaterThan(32_000)
    } finally {
      stop()
      await c.close()
    }
  })
})
