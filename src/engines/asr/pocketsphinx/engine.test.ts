import { beforeAll, describe, expect, it } from 'vitest'
import { concatSamples } from '../../../audio/signal.js'
import { isAbortError, SpeechError } from '../../../errors.js'
import { resampleAll } from '../../../audio/resample.js'
import { SENTENCES, speakAll } from '../../../../test/support/asr-speech.js'
import { runAsrEngineConformance } from '../../../../test/support/conformance/asr-engine.js'
import { createPocketsphinxEngine, type PocketsphinxEngine } from './index.js'

const suite = runAsrEngineConformance({
  name: 'pocketsphinx',
  create: async () => createPocketsphinxEngine({ workers: 2 }),
  maxWer: 0.15,
})
const engine = () => suite.engine() as PocketsphinxEngine
/** About 60 s of speech as one utterance: long enough that a full decode takes seconds. */
let long: Float32Array
let clips: readonly Float32Array[]

beforeAll(async () => {
  const audio = await speakAll(SENTENCES.slice(0, 20))
  long = concatSamples(audio.map((a) => resampleAll(a.samples, a.sampleRate, 16000)))
  clips = suite.clips()
})

describe('pocketsphinx engine', () => {
  it('recognises plain lower-case words, without fillers', async () => {
    for (const clip of clips) for (const w of await engine().transcribe(clip, { language: 'en' })) expect(w.word).toMatch(/^[a-z']+$/)
  })

  it('keeps times right on a long utterance', async () => {
    const padded = concatSamples([new Float32Array(16000 * 3), clips[0]!])
    const r = await engine().transcribe(padded, { language: 'en-US' })
    const plain = await engine().transcribe(clips[0]!, { language: 'en' })
    expect(r[0]!.start - plain[0]!.start).toBeCloseTo(3, 1)
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
      queued.abort()
      await expect(queuedJob).rejects.toSatisfy(isAbortError)
      await new Promise((r) => setTimeout(r, 300))
      const cpu = process.cpuUsage()
      running.abort()
      await expect(runningJob).rejects.toSatisfy(isAbortError)
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
      const expected = await engine().transcribe(clips[2]!, { language: 'en' })
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
