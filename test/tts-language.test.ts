import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestServer, type TestServer } from './helpers/app.js'

/**
 * With no `reference_id`, English text with numbers and names is spoken in English (the "Chapter 11"
 * went to the Finnish voice), and the response says which language was chosen, how sure, and why.
 */
let s: TestServer

beforeAll(async () => {
  s = await startTestServer({})
})
afterAll(async () => s.close())

const post = (url: string, text: string) => s.app.inject({
  method: 'POST',
  url,
  headers: { ...s.asAlice, 'content-type': 'application/json' },
  payload: JSON.stringify({ text, format: 'pcm', sample_rate: 16000 }),
})

describe('language of a TTS request', () => {
  it('keeps English text with numbers in English and says so in x-parla-language', async () => {
    const res = await post('/v1/tts', 'Chapter 11 begins on page 204.')
    expect(res.statusCode, res.body).toBe(200)
    expect(res.headers['x-parla-language']).toMatch(/^en; confidence=[01]\.\d\d; reason=default$/)
    expect(res.rawPayload.length).toBeGreaterThan(16000)
  })

  it('names every language of mixed text, with the script as the reason for Chinese, also on SSE', async () => {
    const res = await post('/v1/tts/stream/with-timestamp', 'The weather is nice today. 今天天气很好。')
    expect(res.statusCode, res.body).toBe(200)
    expect(res.headers['x-parla-language']).toMatch(/^en; confidence=[01]\.\d\d; reason=default, zh; confidence=1\.00; reason=script$/)
  })
})
