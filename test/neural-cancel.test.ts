import { mkdtemp, rm } from 'node:fs/promises'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { NeuralHost } from '../src/engines/neural/host.js'
import { startTestServer, type TestServer } from './helpers/app.js'
import { writePiperVoice } from './support/neural-models.js'

/**
 * A client that leaves stops the neural runtime mid-call: the real host process, observed (not replaced) by
 * recording how each of its syntheses ended in the runtime. The voice is slow on purpose (dense layers per
 * phoneme, a fraction of a second per sentence), so a call of many sentences is still running when the
 * client goes.
 */
let s: TestServer
let modelsDir: string
/** Each synthesis the host ran: sentences in its text, sentences the runtime made, whether a cancel stopped it. */
const runs: { asked: number; sentences: number; cancelled: boolean }[] = []
const original = NeuralHost.prototype.synthesize

beforeAll(async () => {
  NeuralHost.prototype.synthesize = async function* (this: NeuralHost, ...args: Parameters<NeuralHost['synthesize']>) {
    try {
      yield* original.apply(this, args)
    } finally {
      if (this.lastRun) runs.push({ asked: args[0].text.split('.').length - 1, ...this.lastRun })
    }
  }
  modelsDir = await mkdtemp(join(tmpdir(), 'parla-neural-cancel-'))
  await writePiperVoice(modelsDir, 'en_US-slow-low', { work: 600 })
  s = await startTestServer({ modelsDir })
  await s.listen()
})

afterAll(async () => {
  NeuralHost.prototype.synthesize = original
  await s?.close()
  await rm(modelsDir, { recursive: true, force: true })
})

/** Sends the request and resolves once the first body bytes arrived, with a way to drop the connection. */
function firstBytes(path: string, body: object): Promise<() => void> {
  const payload = Buffer.from(JSON.stringify(body))
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, s.url), { method: 'POST', headers: { ...s.asAlice, 'content-type': 'application/json', 'content-length': payload.length } }, (res) => {
      expect(res.statusCode).toBe(200)
      res.once('data', () => resolve(() => req.destroy()))
    })
    req.on('error', (err) => (err.message.includes('socket hang up') ? undefined : reject(err)))
    req.end(payload)
  })
}

const TEXT = Array.from({ length: 30 }, (_, i) => `Sentence number ${i + 1} is here.`).join(' ')

describe('client disconnect through a neural voice', () => {
  it.each(['/v1/tts', '/v1/tts/stream/with-timestamp'])('%s: the runtime stops generating the call in hand', async (path) => {
    runs.length = 0
    const leave = await firstBytes(path, { text: TEXT, reference_id: 'neural-en-us-slow-low', format: 'pcm', chunk_length: 300, latency: 'normal' })
    leave()
    const engine = await s.deps.speech.engines.get('neural')
    // The process is let go of, and a call was stopped by a cancel before its sentences were all made.
    await expect.poll(() => runs.some((r) => r.cancelled), { timeout: 120_000, interval: 20 }).toBe(true)
    await expect.poll(() => engine.saturated?.(), { timeout: 120_000, interval: 20 }).toBe(false)
    const stopped = runs.find((r) => r.cancelled)!
    expect(stopped.asked).toBeGreaterThan(5)
    expect(stopped.sentences).toBeLessThan(stopped.asked)
  })
})
