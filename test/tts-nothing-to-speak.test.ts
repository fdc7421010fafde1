import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestServer, type TestServer } from './helpers/app.js'

/** Text that plans to no speech at all: punctuation, a tag alone, a lone surrogate, invisible characters. */
const NOTHING = [')', '...!?', '(happy)', '\ud800', '\u200b\u200b', '<|speaker:1|>']

describe('text with nothing to speak: a 422 on /v1/tts and SSE, never an empty audio body', () => {
  let s: TestServer
  beforeAll(async () => {
    s = await startTestServer()
  })
  afterAll(async () => s.close())

  it.each(['/v1/tts', '/v1/tts/stream/with-timestamp'].flatMap((url) =>
    ['wav', 'pcm', 'mp3', 'opus'].flatMap((format) => NOTHING.map((text) => [url, format, text] as const)),
  ))('%s, %s, %j', async (url, format, text) => {
    const res = await s.app.inject({ method: 'POST', url, headers: s.asAlice, payload: { text, format } })
    expect(res.statusCode).toBe(422)
    expect(res.headers['content-type']).toMatch(/^application\/json/)
    expect(res.json()).toEqual({ status: 422, message: expect.stringMatching(/^text has nothing to speak/) })
  })

  it('text with one speakable character still speaks', async () => {
    const res = await s.app.inject({ method: 'POST', url: '/v1/tts', headers: s.asAlice, payload: { text: ') a', format: 'wav' } })
    expect(res.statusCode).toBe(200)
    expect(res.rawPayload.length).toBeGreaterThan(1000)
  })
})
