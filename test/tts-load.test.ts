import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestServer, type TestServer } from './helpers/app.js'

/**
 * Many clients at once on a worker-thread engine. flite runs every sentence in a fresh wasm instance; before
 * its workers collected those after each job, this load killed the whole process (SIGSEGV) within seconds.
 */
const CLIENTS = 32
const SECONDS = 8

let s: TestServer
beforeAll(async () => {
  s = await startTestServer()
  await s.listen()
})
afterAll(() => s.close())

async function speak(client: number): Promise<{ status: number; seconds: number }> {
  const res = await fetch(`${s.url}/v1/tts`, {
    method: 'POST',
    headers: { ...s.asAlice, 'content-type': 'application/json' },
    body: JSON.stringify({ text: `Hello number ${client}, this is a short test.`, reference_id: 'flite-rms', format: 'pcm', sample_rate: 16000, latency: 'low' }),
  })
  const bytes = (await res.arrayBuffer()).byteLength
  return { status: res.status, seconds: bytes / 2 / 16000 }
}

describe('TTS under load', () => {
  it(`serves ${CLIENTS} clients sending flite requests back to back for ${SECONDS} s`, async () => {
    const end = Date.now() + SECONDS * 1000
    const results: { status: number; seconds: number }[] = []
    await Promise.all(Array.from({ length: CLIENTS }, async (_, client) => {
      while (Date.now() < end) results.push(await speak(client))
    }))
    expect(results.length).toBeGreaterThanOrEqual(CLIENTS)
    expect(results.filter((r) => r.status !== 200)).toEqual([])
    // "Hello number N, this is a short test." is about two seconds of speech.
    for (const r of results) {
      expect(r.seconds).toBeGreaterThan(1.2)
      expect(r.seconds).toBeLessThan(4)
    }
    // And the server still answers afterwards.
    expect((await speak(0)).status).toBe(200)
  })
})
