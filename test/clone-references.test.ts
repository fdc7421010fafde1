/**
 * Inline `references` on every TTS surface and in every client encoding (fish-compat §2.2), their errors and
 * limits, the analysis cache, and `reference_id` of models that are not trained.
 */
import { encode } from '@msgpack/msgpack'
import { FishAudioClient } from 'fish-audio'
import { ReferenceAudio, Session, TTSRequest } from 'fish-audio-sdk'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { analyzeVoice } from '../src/voices/analysis.js'
import type { VoiceProfile } from '../src/voices/types.js'
import { startTestServer, type TestServer } from './helpers/app.js'
import { decodeWav, pct, shiftedReference, ttsMsgpack, type Reference } from './helpers/clone.js'
import { LiveClient } from './helpers/live.js'
import { parseSse, rebuild } from './helpers/sse.js'
import { silentWav, voiceWav } from './helpers/voice-audio.js'

const SAY = 'Good evening. This voice should sound like the reference speaker, not like the default one.'
const MAX_REFERENCE_BYTES = 400_000

const f0Of = async (bytes: Uint8Array) => {
  const audio = decodeWav(bytes)
  return (await analyzeVoice(audio.samples, audio.sampleRate, { transcript: SAY })).f0.medianHz
}

/** One WebSocket session: start (with `request`), the text, stop; the finish frame and the audio before it. */
async function liveSession(url: string, key: string, request: Record<string, unknown>, text = SAY) {
  const client = await LiveClient.connect(url, { authorization: `Bearer ${key}` })
  try {
    const { finish, audio } = await client.speak({ format: 'wav', ...request }, text)
    return { finish, audio: new Uint8Array(audio) }
  } finally {
    await client.close()
  }
}

describe('inline references: every surface and encoding', () => {
  let s: TestServer
  let ref: Reference
  let target: VoiceProfile
  let defaultF0: number
  const stats = () => s.deps.speech.references.stats
  /** The reference must win clearly: within 5 % of its F0, which is 4 semitones (26 %) above the default voice. */
  const expectCloned = async (bytes: Uint8Array, label: string) => {
    const f0 = await f0Of(bytes)
    console.log(`[clone] ${label}: output F0 ${f0.toFixed(1)} Hz, reference ${target.f0.medianHz} Hz, default voice ${defaultF0.toFixed(1)} Hz`)
    expect(Math.abs(pct(f0, target.f0.medianHz))).toBeLessThan(5)
  }

  beforeAll(async () => {
    s = await startTestServer({ maxReferences: 3, maxReferenceBytes: MAX_REFERENCE_BYTES })
    await s.listen()
    ref = await shiftedReference(4, 0.85)
    target = await analyzeVoice(ref.audio.samples, ref.audio.sampleRate, { transcript: ref.text })
    const plain = await ttsMsgpack(s, { text: SAY })
    expect(plain.status).toBe(200)
    defaultF0 = await f0Of(plain.bytes)
    expect(pct(target.f0.medianHz, defaultF0)).toBeGreaterThan(20)
  })
  afterAll(async () => s.close())

  it('npm fish-audio: references as MessagePack bin (a File the SDK converts); analysed once', async () => {
    const before = stats()
    const client = new FishAudioClient({ apiKey: s.alice, baseUrl: s.url })
    const stream = await client.textToSpeech.convert({
      text: SAY,
      format: 'wav',
      references: [{ audio: new File([ref.wav], 'me.wav', { type: 'audio/wav' }), text: ref.text }],
    })
    const bytes = new Uint8Array(await new Response(stream).arrayBuffer())
    await expectCloned(bytes, 'fish-audio (msgpack bin)')
    expect(stats()).toEqual({ hits: before.hits, analyses: before.analyses + 1 })
  })

  it('npm fish-audio-sdk: references as JSON {type:"Buffer",data:[...]}; served from the cache', async () => {
    const before = stats()
    const logged: string[] = []
    // The SDK console.logs every request; keep the bytes out of the test output but check the encoding.
    const log = vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void logged.push(args.join(' ')))
    const parts: Buffer[] = []
    try {
      const session = new Session(s.alice, s.url)
      const request = new TTSRequest(SAY, { format: 'wav', references: [new ReferenceAudio(Buffer.from(ref.wav), ref.text)] })
      for await (const chunk of session.tts(request)) parts.push(chunk)
    } finally {
      log.mockRestore()
    }
    expect(logged.find((l) => l.startsWith('TTS Request:'))).toMatch(/"type": "Buffer",\s+"data": \[/)
    await expectCloned(new Uint8Array(Buffer.concat(parts)), 'fish-audio-sdk (JSON Buffer)')
    expect(stats()).toEqual({ hits: before.hits + 1, analyses: before.analyses })
  })

  it('plain JSON: references with base64 audio (the fish-speech form)', async () => {
    const before = stats()
    const res = await s.app.inject({
      method: 'POST', url: '/v1/tts', headers: { ...s.asAlice, 'content-type': 'application/json' },
      payload: { text: SAY, format: 'wav', references: [{ audio: Buffer.from(ref.wav).toString('base64'), text: ref.text }] },
    })
    expect(res.statusCode, res.body).toBe(200)
    await expectCloned(new Uint8Array(res.rawPayload), 'JSON base64')
    expect(stats()).toEqual({ hits: before.hits + 1, analyses: before.analyses })
  })

  it('SSE with timestamps: references in MessagePack', async () => {
    const res = await s.app.inject({
      method: 'POST', url: '/v1/tts/stream/with-timestamp', headers: { ...s.asAlice, 'content-type': 'application/msgpack' },
      payload: Buffer.from(encode({ text: SAY, format: 'wav', references: [{ audio: ref.wav, text: ref.text }] })),
    })
    expect(res.statusCode, res.body).toBe(200)
    const rebuilt = rebuild(parseSse(res.body))
    await expectCloned(new Uint8Array(rebuilt.audio), 'SSE')
    // Word timings stay on the stretched timeline: the last word ends within the audio.
    const duration = decodeWav(new Uint8Array(rebuilt.audio)).samples.length / 44100
    expect(rebuilt.words.at(-1)!.end).toBeLessThanOrEqual(duration + 0.05)
    expect(rebuilt.words.at(-1)!.end).toBeGreaterThan(duration - 1)
  })

  it('WebSocket /v1/tts/live: references as bin inside the start request', async () => {
    const before = stats()
    const live = await liveSession(s.url, s.alice, { references: [{ audio: ref.wav, text: ref.text }] })
    expect(live.finish).toEqual({ event: 'finish', reason: 'stop' })
    await expectCloned(live.audio, 'WebSocket start')
    // The session resolves its voices at start and again per text unit: every time from the cache.
    expect(stats().analyses).toBe(before.analyses)
    expect(stats().hits).toBeGreaterThan(before.hits)
  })

  it('repeating references costs no analysis: a new clip is analysed, the same clip again is not', async () => {
    const other = await shiftedReference(-5, 1.2)
    const speak = async () => {
      const res = await fetch(`${s.url}/v1/tts`, {
        method: 'POST',
        headers: { ...s.asAlice, 'content-type': 'application/msgpack' },
        body: encode({ text: 'One short sentence.', format: 'wav', references: [{ audio: other.wav, text: other.text }] }),
      })
      expect(res.status).toBe(200)
      await res.arrayBuffer()
    }
    const before = stats()
    await speak()
    expect(stats()).toEqual({ hits: before.hits, analyses: before.analyses + 1 })
    await speak()
    expect(stats()).toEqual({ hits: before.hits + 1, analyses: before.analyses + 1 })
  })
})

describe('inline references: errors and limits', () => {
  let s: TestServer
  let good: { audio: Uint8Array; text: string }
  beforeAll(async () => {
    s = await startTestServer({ maxReferences: 3, maxReferenceBytes: MAX_REFERENCE_BYTES, trainingWaitSec: 0.3 })
    await s.listen()
    good = { audio: voiceWav({ seconds: 3 }), text: 'A clear sample.' }
  })
  afterAll(async () => s.close())

  const issues = async (references: unknown[]) => {
    const res = await ttsMsgpack(s, { text: 'Hello.', references })
    return { status: res.status, body: res.json() as any }
  }

  it('422 names the reference by index: undecodable, empty or silent audio, missing transcript', async () => {
    const junk = await issues([good, { audio: new TextEncoder().encode('this is not audio, only text'), text: 'x' }])
    expect(junk.status).toBe(422)
    expect(junk.body).toEqual([expect.objectContaining({ loc: ['body', 'references', '1', 'audio'], msg: expect.stringMatching(/^file 'references\[1\]' is not audio/) })])

    const empty = await issues([good, good, { audio: new Uint8Array(0), text: 'x' }])
    expect(empty).toEqual({ status: 422, body: [{ loc: ['body', 'references', '2', 'audio'], type: 'value_error', msg: 'reference 2 has empty audio', in: 'body' }] })

    // The schema catches it first; its first issue names the field (the rest are the union's other branches).
    const noText = await issues([good, { audio: good.audio }])
    expect(noText.status).toBe(422)
    expect(noText.body[0]).toEqual({ loc: ['body', 'references', '1', 'text'], type: 'missing', msg: "Field required: add 'text'", in: 'body' })
    const textNotString = await issues([good, { audio: good.audio, text: 42 }])
    expect(textNotString.status).toBe(422)
    expect(textNotString.body[0]).toMatchObject({ loc: ['body', 'references', '1', 'text'] })

    const silent = await issues([good, { audio: silentWav(3), text: 'Nothing to hear.' }])
    expect(silent.status).toBe(422)
    expect(silent.body).toEqual([expect.objectContaining({ loc: ['body', 'references', '1', 'audio'], msg: 'references[1] contains no speech; send 10 to 30 seconds of clear speech' })])
  })

  it('enforces the configured count and size limits with clear errors', async () => {
    const many = await issues([good, good, good, good])
    expect(many).toEqual({ status: 422, body: [{ loc: ['body', 'references'], type: 'value_error', msg: 'at most 3 references per request; got 4', in: 'body' }] })
    const big = voiceWav({ seconds: 13 }) // 416 KB of 16 kHz 16-bit audio
    expect(big.length).toBeGreaterThan(MAX_REFERENCE_BYTES)
    const large = await issues([good, { audio: big, text: 'Long.' }])
    expect(large).toEqual({ status: 413, body: { status: 413, message: `reference 1 audio is ${big.length} bytes; the limit is ${MAX_REFERENCE_BYTES}` } })
  })

  it('the WebSocket start request reports bad references as finish/error naming the reference', async () => {
    const live = await liveSession(s.url, s.alice, { references: [good, { audio: new Uint8Array(0), text: 'x' }] })
    expect(live.finish).toMatchObject({ event: 'finish', reason: 'error' })
    expect(live.finish!.message).toContain('reference 1 has empty audio')
    expect(live.audio.length).toBe(0)
  })

  it('a model in any state but trained is a 409 that says its state (after the wait for training), on HTTP and WebSocket', async () => {
    const model = await s.deps.models.create(s.aliceAccount, {
      type: 'tts', title: 'not yet', trainMode: 'fast', visibility: 'private', description: '', texts: [], tags: [],
      voices: [{ filename: 'a.wav', bytes: voiceWav({ seconds: 2 }) }], enhanceAudioQuality: false,
    })
    await s.deps.models.training.idle()
    const id = model.id
    const cases = [
      ['created', '', `Voice model '${id}' is still waiting to be trained (state: created) after the wait for training; try again shortly`],
      ['training', '', `Voice model '${id}' is still training (state: training) after the wait for training; try again shortly`],
      ['failed', 'no voice sample passed', `Voice model '${id}' failed training (state: failed): no voice sample passed; create it again with better samples`],
    ] as const
    for (const [state, reason, message] of cases) {
      await s.deps.db.updateTable('models').set({ state, state_reason: reason }).where('id', '=', id).execute()
      const res = await ttsMsgpack(s, { text: 'Hello.', reference_id: id })
      expect({ status: res.status, body: res.json() }).toEqual({ status: 409, body: { status: 409, message } })
      const live = await liveSession(s.url, s.alice, { reference_id: id })
      expect(live.finish).toMatchObject({ event: 'finish', reason: 'error', message: expect.stringContaining(message) })
    }
    await s.deps.db.updateTable('models').set({ state: 'trained', state_reason: '' }).where('id', '=', id).execute()
    expect((await ttsMsgpack(s, { text: 'Hello.', reference_id: id })).status).toBe(200)
  })
})
