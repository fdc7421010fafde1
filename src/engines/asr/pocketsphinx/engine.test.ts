import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { concatSamples } from '../../../audio/signal.js'
import { isAbortError, SpeechError } from '../../../errors.js'
import { resampleAll } from '../../../audio/resample.js'
import { SENTENCES, speakAll } from '../../../../test/support/asr-speech.js'
import { corpusWer } from '../../../asr/wer.js'
import { createPocketsphinxEngine, type PocketsphinxEngine } from './index.js'

const TEXTS = SENTENCES.slice(0, 4)
let clips: Float32Array[]
/** About 60 s of speech as one utterance: long enough that a full decode takes seconds. */
let long: Float32Array
let engine: PocketsphinxEngine

beforeAll(async () => {
  const audio = await speakAll(SENTENCES.slice(0, 20))
  const all = audio.map((a) => resampleAll(a.samples, a.sampleRate, 16000))
  clips = all.slice(0, TEXTS.length)
  long = concatSamples(all)
  engine = createPocketsphinxEngine({ workers: 2 })
  await engine.ready()
})

afterAll(async () => {
  await engine?.close()
})

const words = (list: readonly { word: string }[]) => list.map((w) => w.word).join(' ')

describe('pocketsphinx engine', () => {
  it('recognises words with times and confidences, without fillers', async () => {
    const results = await Promise.all(clips.map((c) => engine.transcribe(c, { language: 'en' })))
    const pooled = corpusWer(results.map((r, i) => ({ reference: TEXTS[i]!, hypothesis: words(r) })))
    expect(pooled.wer).toBeLessThanOrEqual(0.15)
    for (const [i, r] of results.entries()) {
      const duration = clips[i]!.length / 16000
      for (const w of r) {
        expect(w.word).toMatch(/^[a-z']+$/)
        expect(w.end).toBeGreaterThan(w.start)
        expect(w.start).toBeGreaterThanOrEqual(0)
        expect(w.end).toBeLessThanOrEqual(duration + 0.02)
        expect(w.confidence).toBeGreaterThanOrEqual(0)
        expect(w.confidence).toBeLessThanOrEqual(1)
      }
      // Words follow each other in time.
      for (let k = 1; k < r.length; k++) expect(r[k]!.start).toBeGreaterThanOrEqual(r[k - 1]!.end - 1e-9)
    }
  })

  it('gives the same words for the same audio whatever the worker decoded before', async () => {
    const first = await engine.transcribe(clips[1]!, { language: 'en' })
    await Promise.all(clips.map((c) => engine.transcribe(c, { language: 'en' })))
    const again = await engine.transcribe(clips[1]!, { language: 'en' })
    expect(again).toEqual(first)
  })

  it('keeps times right on a long utterance', async () => {
    const padded = concatSamples([new Float32Array(16000 * 3), clips[0]!])
    const r = await engine.transcribe(padded, { language: 'en-US' })
    const plain = await engine.transcribe(clips[0]!, { language: 'en' })
    expect(r[0]!.start - plain[0]!.start).toBeCloseTo(3, 1)
  })

  it('rejects languages it does not have', async () => {
    await expect(engine.transcribe(clips[0]!, { language: 'zh' })).rejects.toBeInstanceOf(SpeechError)
  })

  it('drops a queued job at once and stops a running one, and the pool stays healthy', async () => {
    const single = createPocketsphinxEngine({ workers: 1 })
    try {
      await single.ready()
      const before = await single.transcribe(clips[0]!, { language: 'en' })
      const running = new AbortController()
      const runningJob = single.transcribe(long, { language: 'en', signal: running.signal })
      const queued = new AbortController()
      const queuedJob = single.transcribe(clips[1]!, { language: 'en', signal: queued.signal })
      const t0 = performance.now()
      queued.abort()
      await expect(queuedJob).rejects.toSatisfy(isAbortError)
      expect(performance.now() - t0).toBeLessThan(50)
      await new Promise((r) => setTimeout(r, 300))
      const t1 = performance.now()
      const cpu = process.cpuUsage()
      running.abort()
      await expect(runningJob).rejects.toSatisfy(isAbortError)
      expect(performance.now() - t1).toBeLessThan(50)
      // The only worker must be free for this job, and the rest of `long` must not be decoded first: the
      // whole decode costs about 5 s of CPU (0.09 × 60 s), this clip about 0.3 s. CPU time (all threads of
      // this process) rather than wall time, because test files share the machine.
      const after = await single.transcribe(clips[0]!, { language: 'en' })
      const used = process.cpuUsage(cpu)
      expect((used.user + used.system) / 1e6).toBeLessThan(2)
      expect(after).toEqual(before)
    } finally {
      await single.close()
    }
  })

  it('replaces a worker that does not stop in time', async () => {
    // One block per utterance: the worker cannot notice the abort until the whole decode is done.
    const stubborn = createPocketsphinxEngine({ workers: 1, blockSamples: long.length, stopTimeoutMs: 100 })
    try {
      await stubborn.ready()
      const ac = new AbortController()
      const job = stubborn.transcribe(long, { language: 'en', signal: ac.signal })
      await new Promise((r) => setTimeout(r, 300))
      ac.abort()
      await expect(job).rejects.toSatisfy(isAbortError)
      const expected = await engine.transcribe(clips[2]!, { language: 'en' })
      expect(await stubborn.transcribe(clips[2]!, { language: 'en' })).toEqual(expected)
    } finally {
      await stubborn.close()
    }
  })

  it('refuses work after close', async () => {
    const closing = createPocketsphinxEngine({ workers: 1 })
    await closing.close()
    await expect(closing.transcribe(clips[0]!, { language: 'en' })).rejects.toBeInstanceOf(SpeechError)
  })
})
