import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startWyomingServer, type WyomingServer } from '../src/api/wyoming/server.js'
import { WYOMING_PRINCIPAL } from '../src/api/wyoming/principal.js'
import { float32ToInt16 } from '../src/audio/signal.js'
import { readPcm16Wav } from '../src/audio/wav-header.js'
import { startTestServer, type TestServer } from './helpers/app.js'
import { wyomingClient, type WyomingClient } from './helpers/wyoming-client.js'

/**
 * A Wyoming transcription is admitted at `audio-start`, as the live sockets are at their upgrade: the quota (a
 * concurrency slot, the audio seconds left) and a place in speech recognition's line, held until its
 * `transcript`. A refusal is an `error` event while the user would still be speaking, and the connection goes
 * on. One decoder and no line, so a second utterance finds the server full.
 */
let s: TestServer
let wyoming: WyomingServer

beforeAll(async () => {
  s = await startTestServer({ asrWorkers: 1, asrConcurrency: 1, asrQueueLength: 0 })
  wyoming = await startWyomingServer(s.deps, { host: '127.0.0.1', port: 0, log: s.app.log })
})
afterAll(async () => {
  await wyoming.close()
  await s.close()
})

const FORMAT = { rate: 16000, width: 2, channels: 1 }
const wav = readPcm16Wav(readFileSync(new URL('./fixtures/real-speech/goforward.wav', import.meta.url)))
if (typeof wav === 'string') throw new Error(wav)
const speech = Buffer.from(float32ToInt16(wav.samples).buffer)
const eventually = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 60_000, interval: 20 })

const startUtterance = (c: WyomingClient) => {
  c.send('transcribe', { language: 'en' })
  c.send('audio-start', FORMAT)
}
const sendSpeech = (c: WyomingClient) => {
  for (let at = 0; at < speech.length; at += 3200) c.send('audio-chunk', FORMAT, speech.subarray(at, at + 3200))
}
/** After a refusal: the rest of the utterance is answered with nothing, and the connection still answers. */
const expectNothingMore = async (c: WyomingClient) => {
  sendSpeech(c)
  c.send('audio-stop')
  c.send('ping', { text: 'still there' })
  expect(await c.next()).toMatchObject({ type: 'pong', data: { text: 'still there' } })
}

describe('wyoming transcription admission', () => {
  it('holds a place in the recognition line from audio-start; an utterance that finds it full is refused at its start', async () => {
    const a = await wyomingClient(wyoming.port)
    startUtterance(a)
    // Before any audio: the utterance holds the one place.
    await eventually(() => s.deps.asr.load.active).toBe(1)

    const b = await wyomingClient(wyoming.port)
    startUtterance(b)
    const refusal = await b.next()
    expect(refusal.type).toBe('error')
    expect(refusal.data).toMatchObject({ code: 'engine_busy', text: expect.stringMatching(/capacity for speech recognition/) })
    await expectNothingMore(b)

    // The admitted utterance previews and transcribes in its place: no second wait, no refusal.
    sendSpeech(a)
    a.send('audio-stop')
    const events = await a.until('transcript')
    expect(events.map((e) => e.type)).not.toContain('error')
    expect(events[0]!.type).toBe('transcript-start')
    expect(String(events.at(-1)!.data.text).toLowerCase()).toContain('forward')
    await eventually(() => s.deps.asr.load.active).toBe(0)

    // The place is free again: the other connection's next utterance goes through.
    startUtterance(b)
    sendSpeech(b)
    b.send('audio-stop')
    expect((await b.until('transcript')).map((e) => e.type)).not.toContain('error')
    a.close()
    b.close()
  })

  it('a closed connection, or a new audio-start without audio-stop, gives the place back', async () => {
    const a = await wyomingClient(wyoming.port)
    startUtterance(a)
    sendSpeech(a)
    await eventually(() => s.deps.asr.load.active).toBe(1)
    startUtterance(a)
    a.send('audio-stop')
    expect((await a.until('transcript')).map((e) => e.type)).not.toContain('error')
    startUtterance(a)
    await eventually(() => s.deps.asr.load.active).toBe(1)
    a.close()
    await eventually(() => s.deps.asr.load.active).toBe(0)
  })

  it('an account out of audio seconds is refused at audio-start with the quota error; a slot is held from the start', async () => {
    // Room for one more utterance, not for two.
    const used = (await s.deps.quota.usage(WYOMING_PRINCIPAL.accountId)).audioSeconds
    await s.deps.quota.setLimits(WYOMING_PRINCIPAL.accountId, { audioSecondsPerMonth: Math.ceil(used) + 1, concurrency: 1 })
    try {
      const c = await wyomingClient(wyoming.port)
      startUtterance(c)
      expect((await c.next()).type).toBe('transcript-start')
      // Its concurrency slot is taken at audio-start: another connection is refused before this one stops.
      const other = await wyomingClient(wyoming.port)
      startUtterance(other)
      expect((await other.next()).data).toMatchObject({ code: 'rate_limited', text: expect.stringMatching(/Concurrency limit/) })
      other.close()
      sendSpeech(c)
      c.send('audio-stop')
      expect((await c.until('transcript')).map((e) => e.type)).not.toContain('error')
      await eventually(async () => (await s.deps.quota.usage(WYOMING_PRINCIPAL.accountId)).audioSeconds).toBeGreaterThan(used + 1)

      startUtterance(c)
      const refusal = await c.next()
      expect(refusal.type).toBe('error')
      expect(refusal.data).toMatchObject({ code: 'rate_limited', text: expect.stringMatching(/Monthly audio limit reached/) })
      await expectNothingMore(c)
      c.close()
    } finally {
      await s.deps.quota.setLimits(WYOMING_PRINCIPAL.accountId, { audioSecondsPerMonth: null, concurrency: null })
    }
  })
})
