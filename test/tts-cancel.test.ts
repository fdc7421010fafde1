import { readFileSync } from 'node:fs'
import { request } from 'node:http'
import { cpus } from 'node:os'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FestivalEngine } from '../src/engines/tts/festival/index.js'
import { startTestServer, type TestServer } from './helpers/app.js'

/**
 * A client that goes away stops the work: a long synthesis over a real socket is cut after its first bytes,
 * and festival (the default voice) must stop working on it.
 */
const SENTENCES = [
  'Officials said the bridge will reopen to traffic early next month, after two years of repairs.',
  'The council approved the budget after a long debate on Tuesday evening.',
  'Residents are asked to use the northern route until then, or to take the ferry from the old harbour.',
  'Engineers replaced the deck, the cables and most of the steel supports under the river.',
]
const LONG = Array.from({ length: 12 }, (_, i) => SENTENCES[i % SENTENCES.length]).join(' ')

let s: TestServer
let festival: FestivalEngine
beforeAll(async () => {
  s = await startTestServer()
  await s.listen()
  festival = (await s.deps.speech.engines.get('festival')) as FestivalEngine
})
afterAll(async () => {
  await s.close()
})

/** Sends the request and resolves with the socket once the first body bytes arrived. */
function firstBytes(body: object, path = '/v1/tts'): Promise<{ destroy(): void; bytes: number }> {
  const payload = Buffer.from(JSON.stringify(body))
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, s.url), {
      method: 'POST',
      headers: { ...s.asAlice, 'content-type': 'application/json', 'content-length': payload.length },
    }, (res) => {
      expect(res.statusCode).toBe(200)
      res.once('data', (chunk: Buffer) => resolve({ destroy: () => req.destroy(), bytes: chunk.length }))
    })
    req.on('error', (err) => (err.message.includes('socket hang up') ? undefined : reject(err)))
    req.end(payload)
  })
}

/** A process that is gone or a zombie (killed, not yet reaped) does no work. */
const running = (pid: number): boolean => {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'))
  } catch {
    return false
  }
}

describe('client disconnect', () => {
  it.each(['/v1/tts', '/v1/tts/stream/with-timestamp'])('%s: festival stops working for a request whose socket closed', async (path) => {
    const client = await firstBytes({ text: LONG, format: 'pcm', latency: 'low' }, path)
    expect(client.bytes).toBeGreaterThan(0)
    // Mid-synthesis: the rest of a ~2,000-character text is still being made.
    const busy = festival.processIds().busy
    expect(busy.length).toBeGreaterThan(0)
    client.destroy()
    // Checked by its effect (how fast is `npm run bench:tts`'s business): the processes that worked on it are
    // released or killed, and a killed one is really gone. Without cancellation they would work for seconds.
    await expect.poll(() => festival.processIds().busy.filter((pid) => busy.includes(pid)), { timeout: 120_000, interval: 5 }).toEqual([])
    const { all } = festival.processIds()
    await expect.poll(() => busy.filter((pid) => !all.includes(pid) && running(pid)), { timeout: 120_000, interval: 10 }).toEqual([])
  })

  it('the next request works (interrupted processes are replaced)', async () => {
    const res = await s.app.inject({ method: 'POST', url: '/v1/tts', headers: s.asAlice, payload: { text: 'Still here.', format: 'pcm' } })
    expect(res.statusCode).toBe(200)
    expect(res.rawPayload.length).toBeGreaterThan(44100)
    await expect.poll(() => festival.processIds().all.length, { timeout: 120_000 }).toBe(cpus().length)
  })
})
