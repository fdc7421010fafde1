import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startWyomingServer, type WyomingServer } from '../src/api/wyoming/server.js'
import { startTestServer, type TestServer } from './helpers/app.js'
import { findSilences, parseSse, rebuild } from './helpers/sse.js'
import { pcm16 } from './helpers/tts-audio.js'
import { wyomingClient } from './helpers/wyoming-client.js'

/**
 * SSML documents as `text` (Fish), `input` (OpenAI) and `synthesize` text (Wyoming), through the real engines:
 * what the markup asks for is heard in the audio, and a broken document is a 422 that says where.
 */
let s: TestServer
let wyoming: WyomingServer
const RATE = 22_050

beforeAll(async () => {
  s = await startTestServer()
  wyoming = await startWyomingServer(s.deps, { host: '127.0.0.1', port: 0, log: s.app.log })
})
afterAll(async () => {
  await wyoming?.close()
  await s?.close()
})

async function tts(text: string, body: Record<string, unknown> = {}) {
  const res = await s.app.inject({ method: 'POST', url: '/v1/tts', headers: s.asAlice, payload: { text, format: 'pcm', sample_rate: RATE, ...body } })
  expect(res.statusCode, res.body.slice(0, 300)).toBe(200)
  return { pcm: res.rawPayload, language: res.headers['x-parla-language'] }
}
const seconds = (pcm: Buffer) => pcm.length / 2 / RATE
const longestInnerSilence = (pcm: Buffer) => {
  const samples = pcm16(pcm)
  const inner = findSilences(samples, RATE).filter((q) => q.start > 0.05 && q.end < samples.length / RATE - 0.05)
  return Math.max(0, ...inner.map((q) => q.end - q.start))
}

describe('SSML on /v1/tts', () => {
  it('a break is heard as that much silence between the words', async () => {
    const [plain, broken] = await Promise.all([
      tts('Hello there. The door is open.'),
      tts('<speak>Hello there. <break time="2s"/> The door is open.</speak>'),
    ])
    expect(longestInnerSilence(plain.pcm)).toBeLessThan(1)
    expect(longestInnerSilence(broken.pcm)).toBeGreaterThan(1.9)
    expect(seconds(broken.pcm) - seconds(plain.pcm)).toBeGreaterThan(1.5)
  })

  it('speaks what sub and say-as say: the same audio as the words written out', async () => {
    const [ssml, written] = await Promise.all([
      tts('<speak>The <sub alias="World Wide Web Consortium">W3C</sub> meets on the <say-as interpret-as="ordinal">3</say-as> day.</speak>'),
      tts('The World Wide Web Consortium meets on the 3rd day.'),
    ])
    expect(ssml.pcm.equals(written.pcm)).toBe(true)
  })

  it('a slow prosody span is slower than the same words outside it, and only it', async () => {
    const [plain, slow] = await Promise.all([
      tts('The weather today is calm and clear.'),
      tts('<speak><prosody rate="x-slow">The weather today is calm and clear.</prosody></speak>'),
    ])
    expect(seconds(slow.pcm) / seconds(plain.pcm)).toBeGreaterThan(1.5)
    const after = await tts('<speak><prosody rate="x-slow">The weather today is calm and clear.</prosody> The weather today is calm and clear.</speak>')
    // The second sentence is back to normal speed: the whole is far shorter than twice the slow sentence.
    expect(seconds(after.pcm)).toBeLessThan(seconds(slow.pcm) + seconds(plain.pcm) + 0.8)
  })

  it('xml:lang picks the language (and its voice) for its span, and the header says why', async () => {
    const res = await tts('<speak>Good morning. <lang xml:lang="de-DE">Guten Morgen.</lang></speak>')
    expect(res.language).toMatch(/^en; confidence=[01]\.\d\d; reason=default, de; confidence=1\.00; reason=markup$/)
  })

  it('<voice name> speaks its span with that voice model, after the request\'s own reference_id', async () => {
    const [mixed, plain, awb] = await Promise.all([
      tts('<speak>The door is open. <voice name="flite-awb">The door is open.</voice></speak>', { reference_id: 'festival-slt' }),
      tts('The door is open. The door is open.', { reference_id: 'festival-slt' }),
      tts('The door is open.', { reference_id: 'flite-awb' }),
    ])
    expect(mixed.pcm.equals(plain.pcm)).toBe(false)
    // flite's awb speaks the second sentence: the mixed audio is as much longer than festival's one sentence
    // as awb's sentence lasts, give or take the pause between them.
    const single = await tts('The door is open.', { reference_id: 'festival-slt' })
    expect(Math.abs(seconds(mixed.pcm) - seconds(single.pcm) - seconds(awb.pcm))).toBeLessThan(0.6)
    const unknown = await s.app.inject({ method: 'POST', url: '/v1/tts', headers: s.asAlice, payload: { text: '<speak>Hi. <voice name="no-such-voice">Hello.</voice></speak>' } })
    expect(unknown.statusCode).toBe(404)
    expect(unknown.json().message).toMatch(/'no-such-voice' not found/)
  })

  it('word timestamps name the spoken words, not the markup', async () => {
    const res = await s.app.inject({ method: 'POST', url: '/v1/tts/stream/with-timestamp', headers: s.asAlice, payload: { text: '<speak>Hello <break time="1500ms"/> world.</speak>', format: 'wav' } })
    expect(res.statusCode).toBe(200)
    const words = rebuild(parseSse(res.body)).words
    expect(words.map((w) => w.text)).toEqual(['Hello', 'world'])
    expect(words[1]!.start - words[0]!.end).toBeGreaterThan(1.4)
  })

  it('a document that is not well-formed is a 422 saying where, in the Fish shape', async () => {
    const res = await s.app.inject({ method: 'POST', url: '/v1/tts', headers: s.asAlice, payload: { text: '<speak>\nHello <prosody rate="slow">world.\n</speak>', format: 'wav' } })
    expect(res.statusCode).toBe(422)
    expect(res.json()).toEqual([{ loc: ['body', 'text'], type: 'value_error', in: 'body', msg: expect.stringMatching(/^text is SSML \(it starts with <speak>\) but is not well-formed \(.+\) at line 3, column \d+; fix the markup, or send plain text$/) }])
  })

  it('text that only mentions <speak> later is read as text, not refused as a broken document', async () => {
    const { pcm } = await tts('Say <speak> now.')
    expect(seconds(pcm)).toBeGreaterThan(0.5)
  })
})

describe('SSML on the other surfaces', () => {
  it('OpenAI /v1/audio/speech reads SSML input, also with instructions; a broken one is an OpenAI error', async () => {
    const speak = (input: string, extra: Record<string, unknown> = {}) => s.app.inject({ method: 'POST', url: '/v1/audio/speech', headers: s.asAlice, payload: { model: 'tts-1', voice: 'alloy', input, response_format: 'pcm', ...extra } })
    const [ssml, plain, instructed] = await Promise.all([
      speak('<speak>Hello. <break time="2s"/> Goodbye.</speak>'),
      speak('Hello. Goodbye.'),
      speak('<speak>Hello. <break time="2s"/> Goodbye.</speak>', { model: 'gpt-4o-mini-tts', instructions: 'Speak cheerfully.' }),
    ])
    for (const res of [ssml, plain, instructed]) expect(res.statusCode, res.body.slice(0, 200)).toBe(200)
    const openaiSeconds = (res: typeof ssml) => res.rawPayload.length / 2 / 24_000
    expect(openaiSeconds(ssml) - openaiSeconds(plain)).toBeGreaterThan(1.5)
    expect(openaiSeconds(instructed) - openaiSeconds(plain)).toBeGreaterThan(1.5)
    const broken = await speak('<speak>Hello <break time="soon"/></speak>')
    // OpenAI answers every invalid request with a 400.
    expect(broken.statusCode).toBe(400)
    expect(broken.json()).toEqual({ error: { message: expect.stringContaining('<break time="soon"> is not a duration'), type: 'invalid_request_error', param: 'input', code: expect.any(String) } })
  })

  it('Wyoming synthesize reads SSML; a broken document is an error event, and the connection goes on', async () => {
    const c = await wyomingClient(wyoming.port)
    try {
      c.send('synthesize', { text: '<speak>Lights on. <break time="2s"/> Door locked.</speak>', voice: { name: 'festival-slt' } })
      const events = await c.until('audio-stop')
      const pcm = Buffer.concat(events.filter((e) => e.type === 'audio-chunk').map((e) => e.payload!))
      expect(longestInnerSilence(pcm)).toBeGreaterThan(1.9)
      c.send('synthesize', { text: '<speak>Lights <on/>', voice: { name: 'festival-slt' } })
      const [error] = await c.until('error')
      expect(error!.data.text).toMatch(/not well-formed/)
      c.send('synthesize', { text: 'Door locked.', voice: { name: 'festival-slt' } })
      expect((await c.until('audio-stop')).length).toBeGreaterThan(2)
    } finally {
      c.close()
    }
  })
})
