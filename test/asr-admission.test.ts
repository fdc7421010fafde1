import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { AsrEngine, RecognizedWord } from '../src/engines/asr/types.js'
import { SENTENCES, speakAll, toWav } from './support/asr-speech.js'
import { startTestServer, type TestServer } from './helpers/app.js'

/**
 * Speech recognition under admission control: one decoder, a line of one. A transcription beyond the line is
 * turned away at once with 503 and `Retry-After` in its surface's shape; what runs and waits shows in
 * /metrics; and while a decoder is busy, speech plans its streams with the cores left. The recognizer is a
 * fake the test releases by hand (plumbing: it holds the decoder as long as the test needs); decoding and
 * VAD are real.
 */
let open!: () => void
const released = new Promise<void>((resolve) => (open = resolve))
let calls = 0
const heldEngine: AsrEngine = {
  id: 'held',
  capabilities: { languages: ['en'], sampleRate: 16_000, maxUtteranceSeconds: 20, parallelism: 1 },
  async transcribe(): Promise<readonly RecognizedWord[]> {
    calls++
    await released
    return [{ word: 'hello', start: 0, end: 0.5, confidence: 1 }]
  },
  close: async () => {},
}

const eventually = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 120_000, interval: 20 })
let s: TestServer
let speech: Blob

beforeAll(async () => {
  const [clip] = await speakAll([SENTENCES[0]!])
  speech = new Blob([toWav(clip!.samples, clip!.sampleRate)], { type: 'audio/wav' })
  // Automatic stream limits (maxStreams 0), so the cores speech plans with show in them.
  s = await startTestServer({ asrConcurrency: 1, asrQueueLength: 1, asrWaitSec: 3600, maxStreams: 0, maxStartingStreams: 0 }, { asrEngine: () => heldEngine })
  await s.listen()
}, 120_000)
afterAll(async () => s?.close())

const fishAsr = () => {
  const form = new FormData()
  form.append('audio', speech, 'speech.wav')
  return fetch(new URL('/v1/asr', s.url), { method: 'POST', headers: s.asAlice, body: form })
}
const openaiAsr = () => {
  const form = new FormData()
  form.append('file', speech, 'speech.wav')
  form.append('model', 'whisper-1')
  return fetch(new URL('/v1/audio/transcriptions', s.url), { method: 'POST', headers: s.asAlice, body: form })
}

describe('speech recognition under admission control', () => {
  it('turns a transcription beyond the line away with 503 and Retry-After, on both surfaces; the others finish', async () => {
    const idleLimit = s.deps.admission.snapshot().limits.streams
    const first = fishAsr()
    await eventually(() => calls).toBeGreaterThan(0)
    const second = openaiAsr()
    await eventually(() => s.deps.asr.load).toEqual({ active: 1, waiting: 1, limit: 1 })

    const fish = await fishAsr()
    expect(fish.status).toBe(503)
    expect(Number(fish.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    const fishBody = (await fish.json()) as { status: number; message: string }
    expect(fishBody.status).toBe(503)
    expect(fishBody.message).toMatch(/^The server is at capacity for speech recognition \(1 of 1 running, 1 waiting\); retry in \d+ s/)
    const openai = await openaiAsr()
    expect(openai.status).toBe(503)
    expect(openai.headers.get('retry-after')).not.toBeNull()
    expect(await openai.json()).toMatchObject({ error: { type: 'server_error', code: 'engine_busy', message: expect.stringMatching(/capacity for speech recognition/) } })

    const metrics = await (await fetch(new URL('/metrics', s.url))).text()
    expect(metrics).toMatch(/^parla_asr_requests\{state="active"\} 1$/m)
    expect(metrics).toMatch(/^parla_asr_requests\{state="queued"\} 1$/m)
    expect(metrics).toMatch(/^parla_asr_rejections_total 2$/m)
    // The busy decoder holds a core: speech admits fewer streams until it is done.
    expect(s.deps.admission.snapshot().limits.streams).toBeLessThan(idleLimit)

    open()
    for (const res of await Promise.all([first, second])) expect(res.status, await res.clone().text()).toBe(200)
    expect(s.deps.asr.load).toEqual({ active: 0, waiting: 0, limit: 1 })
    expect(s.deps.admission.snapshot().limits.streams).toBe(idleLimit)
  })
})
