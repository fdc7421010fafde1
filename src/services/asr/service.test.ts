import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SENTENCES, speakAll, toWav } from '../../../test/support/asr-speech.js'
import { resampleAll } from '../../audio/resample.js'
import type { AsrEngine, RecognizedWord } from '../../engines/asr/types.js'
import { isAbortError, SpeechError } from '../../errors.js'
import { createAsrService, type AsrService } from './service.js'

/**
 * The service's plumbing with real decoding and VAD but a fake recognizer whose calls the test finishes by
 * hand: with parallelism 1, each request in recognition has exactly one call outstanding.
 */
function fakeEngine() {
  const pending: { finish: () => void }[] = []
  /** Samples per call: at 16 kHz they fit in the file's duration, at its own 48 kHz they would not. */
  const lengths: number[] = []
  let most = 0
  const engine: AsrEngine = {
    id: 'fake',
    capabilities: { languages: ['en'], sampleRate: 16_000, maxUtteranceSeconds: 20, parallelism: 1 },
    transcribe: (samples) => new Promise<readonly RecognizedWord[]>((resolve) => {
      lengths.push(samples.length)
      const call = {
        finish: () => {
          pending.splice(pending.indexOf(call), 1)
          resolve([{ word: 'hello', start: 0, end: 0.5, confidence: 1 }])
        },
      }
      pending.push(call)
      most = Math.max(most, pending.length)
    }),
    close: async () => {},
  }
  return { engine, pending, lengths, most: () => most }
}

async function until(test: () => boolean, ms = 20_000): Promise<void> {
  const end = Date.now() + ms
  while (!test()) {
    if (Date.now() > end) throw new Error('condition not reached in time')
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

let speech: Uint8Array
let speech48k: Uint8Array
const fake = fakeEngine()
let service: AsrService

beforeAll(async () => {
  const [clip] = await speakAll([SENTENCES[0]!])
  speech = toWav(clip!.samples, clip!.sampleRate)
  speech48k = toWav(resampleAll(clip!.samples, clip!.sampleRate, 48_000), 48_000)
  service = createAsrService({ workers: 1, concurrency: 2, engine: () => fake.engine })
}, 60_000)

afterAll(async () => service?.close())

describe('ASR service: at most `concurrency` requests hold decoded audio', { timeout: 60_000 }, () => {
  it('queues requests beyond the limit, lets an aborted one leave the line, and serves the rest', async () => {
    const leaving = new AbortController()
    const requests = [0, 1, 2, 3].map((i) => service.transcribe(
      { audio: speech.slice(), filename: `r${i}.wav`, ignoreTimestamps: false },
      i === 3 ? leaving.signal : undefined))
    await until(() => fake.pending.length === 2)
    // Give the queued ones every chance to (wrongly) start.
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(fake.pending.length).toBe(2)
    expect(service.load).toEqual({ active: 2, waiting: 2, limit: 2 })

    // Cheap refusals do not queue behind them.
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
    await expect(service.transcribe({ audio: png, filename: 'x.png' })).rejects.toThrow(/looks like a PNG image/)

    leaving.abort()
    const left = await requests[3]!.catch((e: unknown) => e)
    expect(isAbortError(left)).toBe(true)
    expect(service.load.waiting).toBe(1)

    let settled = 0
    const all = Promise.all(requests.slice(0, 3)).finally(() => { settled = 1 })
    while (!settled) {
      await until(() => fake.pending.length > 0 || settled === 1)
      fake.pending[0]?.finish()
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
    const results = await all
    expect(results.map((r) => r.text)).toEqual(['Hello.', 'Hello.', 'Hello.'])
    expect(fake.most()).toBe(2)
    expect(service.load).toEqual({ active: 0, waiting: 0, limit: 2 })
  })

  it('a 48 kHz upload reaches the engine at 16 kHz; a file under 1 s gets 422', async () => {
    fake.lengths.length = 0
    const request = service.transcribe({ audio: speech48k, filename: 'hi.wav' })
    let done = false
    void request.finally(() => { done = true })
    while (!done) {
      await until(() => fake.pending.length > 0 || done)
      fake.pending[0]?.finish()
    }
    const result = await request
    const total = fake.lengths.reduce((a, b) => a + b, 0)
    expect(total).toBeGreaterThan(0.5 * result.duration * 16_000)
    expect(total).toBeLessThanOrEqual(Math.ceil(result.duration * 16_000))

    const err = await service.transcribe({ audio: toWav(new Float32Array(8000), 16_000), filename: 'short.wav' })
      .catch((e: unknown) => e)
    expect(err).toBeInstanceOf(SpeechError)
    expect((err as SpeechError).message).toBe('audio is 0.50 s long; send at least 1 second of audio')
    expect(service.load.active).toBe(0)
  })
})
