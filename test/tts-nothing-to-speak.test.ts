import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startWyomingServer, type WyomingServer } from '../src/api/wyoming/server.js'
import { listBuiltinVoices } from '../src/voices/builtin.js'
import { startTestServer, type TestServer } from './helpers/app.js'
import { LiveClient } from './helpers/live.js'
import { wyomingClient } from './helpers/wyoming-client.js'

/** Text that plans to no speech at all: punctuation, a tag alone, a lone surrogate, invisible characters. */
const NOTHING = [')', '...!?', '(happy)', '\ud800', '\u200b\u200b', '<|speaker:1|>']
/** Symbols that plan to a chunk, but that a classic voice has no words for: its engine makes no sound. */
const SYMBOLS = '∑∫√∞'

const issue = (type: string) => [{ loc: ['body', 'text'], type, msg: expect.stringMatching(/^text has nothing/), in: 'body' }]

let s: TestServer
beforeAll(async () => {
  s = await startTestServer()
})
afterAll(async () => s.close())

describe('text with nothing to speak: a 422 on /v1/tts and SSE, never an empty audio body', () => {
  it.each(['/v1/tts', '/v1/tts/stream/with-timestamp'].flatMap((url) =>
    ['wav', 'pcm', 'mp3', 'opus'].flatMap((format) => NOTHING.map((text) => [url, format, text] as const)),
  ))('%s, %s, %j', async (url, format, text) => {
    const res = await s.app.inject({ method: 'POST', url, headers: s.asAlice, payload: { text, format } })
    expect(res.statusCode).toBe(422)
    expect(res.headers['content-type']).toMatch(/^application\/json/)
    expect(res.json()).toEqual(issue('nothing_to_speak'))
  })

  it('text with one speakable character still speaks', async () => {
    const res = await s.app.inject({ method: 'POST', url: '/v1/tts', headers: s.asAlice, payload: { text: ') a', format: 'wav' } })
    expect(res.statusCode).toBe(200)
    expect(res.rawPayload.length).toBeGreaterThan(1000)
  })
})

describe('text the voice makes no sound for: the same 422, found before the first byte', () => {
  it.each(['/v1/tts', '/v1/tts/stream/with-timestamp'].flatMap((url) =>
    ['wav', 'pcm', 'mp3', 'opus'].flatMap((format) => [undefined, 'no-such-model'].map((model) => [url, format, model] as const)),
  ))('%s, %s, model header %s', async (url, format, model) => {
    const res = await s.app.inject({ method: 'POST', url, headers: { ...s.asAlice, ...(model && { model }) }, payload: { text: SYMBOLS, format } })
    expect(res.statusCode).toBe(422)
    expect(res.json()).toEqual(issue('nothing_to_speak'))
    expect(res.json()[0].msg).toContain("voice 'festival-slt'")
  })

  it('every engine, and every English voice, speaks the symbols or answers the 422; none answers 200 with no sound', async () => {
    const all = await listBuiltinVoices(s.deps.speech.engines)
    const firstOfEngine = new Set(all.filter((v, i) => all.findIndex((w) => w.engineId === v.engineId) === i).map((v) => v.modelId))
    const voices = all.filter((v) => firstOfEngine.has(v.modelId) || v.voice.languages.some((l) => l.startsWith('en'))).map((v) => v.modelId)
    expect(new Set(all.map((v) => v.engineId)).size).toBeGreaterThan(1)
    for (const voice of voices) {
      for (const url of ['/v1/tts', '/v1/tts/stream/with-timestamp']) {
        const res = await s.app.inject({ method: 'POST', url, headers: s.asAlice, payload: { text: SYMBOLS, format: 'pcm', reference_id: voice } })
        if (res.statusCode === 422) {
          expect(res.json(), `${voice} ${url}`).toEqual(issue('nothing_to_speak'))
          continue
        }
        expect(res.statusCode, `${voice} ${url}: ${res.body.slice(0, 200)}`).toBe(200)
        const pcm = url === '/v1/tts' ? res.rawPayload : Buffer.concat(res.body.split('\n\n').filter((m) => m.startsWith('data: ')).map((m) => Buffer.from(JSON.parse(m.slice(6)).audio_base64 as string, 'base64')))
        const samples = new Int16Array(pcm.buffer, pcm.byteOffset, Math.floor(pcm.length / 2))
        expect(samples.some((v) => Math.abs(v) > 100), `${voice} ${url}: a 200 with sound in it`).toBe(true)
      }
    }
  })

  it('several chunks of symbols are one 422; symbols before words only delay the words', async () => {
    const many = Array.from({ length: 12 }, () => `${SYMBOLS}.`).join(' ')
    const none = await s.app.inject({ method: 'POST', url: '/v1/tts', headers: s.asAlice, payload: { text: many, format: 'pcm', chunk_length: 100 } })
    expect(none.statusCode).toBe(422)
    expect(none.json()).toEqual(issue('nothing_to_speak'))
    const some = await s.app.inject({ method: 'POST', url: '/v1/tts', headers: s.asAlice, payload: { text: `${many} Hello there.`, format: 'pcm', sample_rate: 16_000, chunk_length: 100 } })
    expect(some.statusCode).toBe(200)
    expect(some.rawPayload.length / 2 / 16_000).toBeGreaterThan(0.5)
  })

  it('OpenAI speech: a 400 naming input', async () => {
    const res = await s.app.inject({ method: 'POST', url: '/v1/audio/speech', headers: s.asAlice, payload: { model: 'tts-1', voice: 'alloy', input: SYMBOLS, response_format: 'pcm' } })
    expect(res.statusCode).toBe(400)
    expect(res.json().error).toMatchObject({ param: 'input', type: 'invalid_request_error', message: expect.stringMatching(/^'input' has nothing/) })
  })

  it('live socket: the utterance finishes with the 422 message and no audio; a symbol between sentences is silent', async () => {
    const url = await s.listen()
    const http = await s.app.inject({ method: 'POST', url: '/v1/tts', headers: s.asAlice, payload: { text: SYMBOLS, format: 'pcm' } })
    const [{ msg }] = http.json() as [{ msg: string }]
    const c = await LiveClient.connect(url, s.asAlice)
    try {
      const silent = await c.speak({ format: 'pcm' }, SYMBOLS)
      expect(silent.finish).toEqual({ event: 'finish', reason: 'error', message: msg })
      expect(silent.audio.length).toBe(0)
      const mixed = await c.speak({ format: 'pcm' }, `Hello. ${SYMBOLS}. Goodbye.`)
      expect(mixed.finish).toEqual({ event: 'finish', reason: 'stop' })
      expect(mixed.audio.length).toBeGreaterThan(10_000)
    } finally {
      await c.close()
    }
  })

  it('Wyoming: an error event for a whole request, no audio-start', async () => {
    let wyoming: WyomingServer | undefined
    try {
      wyoming = await startWyomingServer(s.deps, { host: '127.0.0.1', port: 0, log: s.app.log })
      const c = await wyomingClient(wyoming.port)
      c.send('synthesize', { text: SYMBOLS, voice: { name: 'festival-slt' } })
      expect(await c.next()).toMatchObject({ type: 'error', data: { code: 'unusable_input', text: expect.stringMatching(/^text has nothing/) } })
      c.close()
    } finally {
      await wyoming?.close()
    }
  })
})
