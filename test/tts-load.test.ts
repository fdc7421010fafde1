import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { toTtsParams } from '../src/api/fish/tts-params.js'
import { startTestServer, type TestServer } from './helpers/app.js'

/**
 * Many clients at once on a worker-thread engine. When flite ran every sentence in a fresh node:wasi instance,
 * this load killed the whole process (SIGSEGV, SIGABRT) within seconds; see docs/decisions.md.
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

  it('balanced: a request that would queue for a busy engine gets a short first phrase', async () => {
    const text = 'Officials said the bridge will reopen to traffic early next month. The council approved the budget.'
    const principal = { accountId: s.aliceAccount, keyId: '' }
    const params = toTtsParams({ text, latency: 'balanced' } as never, undefined, s.deps.config)
    const prepare = async (presplit = false) => (await s.deps.tts.prepare({ ...params, presplit }, principal)).chunks
    const idle = await prepare()
    expect(idle.map((c) => c.content)).toEqual([text])
    const festival = await s.deps.speech.engines.get('festival')
    const busy = vi.spyOn(festival, 'saturated').mockReturnValue(true)
    try {
      const loaded = await prepare()
      // The first phrase alone, then the rest of the text: nothing lost, nothing added.
      expect(loaded[0]!.content.length).toBeLessThan(idle[0]!.content.length)
      expect(loaded.map((c) => c.content).join(' ')).toBe(idle.map((c) => c.content).join(' '))
      // A live session's units are already cut as they should be spoken.
      expect((await prepare(true)).map((c) => c.content)).toEqual([text])
    } finally {
      busy.mockRestore()
    }
  })
})
