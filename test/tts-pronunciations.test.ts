import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestServer, type TestServer } from './helpers/app.js'
import { parseSse, rebuild } from './helpers/sse.js'

/** The `pronunciations` setting: the operator's words reach the engine, and timing still names the written word. */
const dir = mkdtempSync(join(tmpdir(), 'parla-pronunciations-'))
const file = (name: string, text: string) => {
  const path = join(dir, name)
  writeFileSync(path, text)
  return path
}
let plain: TestServer
let withLexicon: TestServer

beforeAll(async () => {
  ;[plain, withLexicon] = await Promise.all([
    startTestServer(),
    startTestServer({ pronunciations: file('lexicon.json', JSON.stringify({ nginx: 'engine x', SQL: 'sequel' })) }),
  ])
})
afterAll(async () => {
  await Promise.all([plain?.close(), withLexicon?.close()])
  rmSync(dir, { recursive: true, force: true })
})

async function pcm(s: TestServer, text: string, body: Record<string, unknown> = {}): Promise<Buffer> {
  const res = await s.app.inject({ method: 'POST', url: '/v1/tts', headers: s.asAlice, payload: { text, format: 'pcm', ...body } })
  expect(res.statusCode, res.body.slice(0, 300)).toBe(200)
  return res.rawPayload
}

describe('pronunciations', () => {
  it('speaks the lexicon\'s words for the written ones, with normalization on or off', async () => {
    const [said, respelled, unchanged] = await Promise.all([
      pcm(withLexicon, 'Restart nginx and query SQL.'),
      pcm(plain, 'Restart engine x and query sequel.'),
      pcm(plain, 'Restart nginx and query SQL.'),
    ])
    expect(said.equals(respelled)).toBe(true)
    expect(said.equals(unchanged)).toBe(false)
    const raw = await pcm(withLexicon, 'Restart nginx and query SQL.', { normalize: false })
    expect(raw.equals(await pcm(plain, 'Restart engine x and query sequel.', { normalize: false }))).toBe(true)
  })

  it('times the written word in the SSE stream, over the span of its spoken words', async () => {
    const res = await withLexicon.app.inject({
      method: 'POST', url: '/v1/tts/stream/with-timestamp', headers: withLexicon.asAlice,
      payload: { text: 'Restart nginx now.', format: 'wav' },
    })
    expect(res.statusCode).toBe(200)
    const words = rebuild(parseSse(res.body)).words
    expect(words.map((w) => w.text)).toEqual(['Restart', 'nginx', 'now'])
    const [restart, nginx, now] = words as [typeof words[0], typeof words[0], typeof words[0]]
    // "engine x" is three syllables: longer than "now", and between its neighbours.
    expect(nginx.start).toBeGreaterThanOrEqual(restart.end)
    expect(now.start).toBeGreaterThanOrEqual(nginx.end)
    expect(nginx.end - nginx.start).toBeGreaterThan(now.end - now.start)
  })

  it('stops the server at start when the file is missing or wrong, saying what to fix', async () => {
    await expect(startTestServer({ pronunciations: join(dir, 'nope.json') })).rejects.toThrow(/nope\.json.*PARLA_PRONUNCIATIONS.*no such file/)
    await expect(startTestServer({ pronunciations: file('broken.json', '{"nginx": ') })).rejects.toThrow(/broken\.json is not valid JSON/)
    await expect(startTestServer({ pronunciations: file('spaces.json', '{"New York": "noo york"}') })).rejects.toThrow(/"New York" is not one word/)
  })
})
