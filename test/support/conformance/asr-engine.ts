/**
 * The contract every speech recognizer keeps (`AsrEngine` in src/engines/asr/types.ts), as one suite each
 * engine runs: sane capabilities, the words of known sentences (pooled word error rate at most `maxWer`),
 * word times inside the audio and in order, the same words for the same audio, unsupported languages and
 * aborted calls rejected, and the engine still working after an abort. `skip` names cases an engine cannot
 * meet, with the reason. Returns the engine, for the file's own engine-specific tests.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { resampleAll } from '../../../src/audio/resample.js'
import { corpusWer } from '../../../src/asr/wer.js'
import type { AsrEngine } from '../../../src/engines/asr/types.js'
import { isAbortError, SpeechError } from '../../../src/errors.js'
import { SENTENCES, speakAll } from '../asr-speech.js'

export type AsrConformanceCase = 'accuracy'

export interface AsrConformanceOptions {
  readonly name: string
  readonly create: () => Promise<AsrEngine>
  /** Pooled word error rate allowed on four clear English sentences. */
  readonly maxWer: number
  readonly skip?: Partial<Record<AsrConformanceCase, string>>
}

export interface AsrConformance {
  engine(): AsrEngine
  /** The four sentences spoken (festival), at the engine's rate, and their texts. */
  clips(): readonly Float32Array[]
  readonly texts: readonly string[]
}

export function runAsrEngineConformance(options: AsrConformanceOptions): AsrConformance {
  const texts = SENTENCES.slice(0, 4)
  let engine: AsrEngine | undefined
  let clips: Float32Array[] = []
  const get = () => engine ?? (() => { throw new Error(`${options.name} did not start`) })()
  const hear = (samples: Float32Array, extra: object = {}) => get().transcribe(samples, { language: 'en', ...extra })

  beforeAll(async () => {
    engine = await options.create()
    const rate = engine.capabilities.sampleRate
    clips = (await speakAll(texts)).map((a) => resampleAll(a.samples, a.sampleRate, rate))
    await engine.ready?.()
  })
  afterAll(() => engine?.close())

  describe(`${options.name}: ASR engine conformance`, () => {
    it('describes itself: languages, sample rate, parallelism', () => {
      const caps = get().capabilities
      expect(caps.languages.length).toBeGreaterThan(0)
      expect(caps.languages).toContain('en')
      expect(caps.sampleRate).toBeGreaterThan(0)
      expect(caps.parallelism).toBeGreaterThanOrEqual(1)
      expect(caps.maxUtteranceSeconds).toBeGreaterThan(0)
    })

    if (options.skip?.accuracy) it(`recognises known sentences — not applicable: ${options.skip.accuracy}`, () => {})
    else it(`recognises known sentences (word error rate at most ${options.maxWer})`, async () => {
      const results = await Promise.all(clips.map((c) => hear(c)))
      const hypothesis = (r: readonly { word: string }[]) => r.map((w) => w.word).join(' ')
      expect(corpusWer(results.map((r, i) => ({ reference: texts[i]!, hypothesis: hypothesis(r) }))).wer).toBeLessThanOrEqual(options.maxWer)
    })

    it('gives words with times inside the audio, in order, and confidences in 0..1', async () => {
      for (const clip of clips) {
        const r = await hear(clip)
        const duration = clip.length / get().capabilities.sampleRate
        for (const w of r) {
          expect(w.word.length).toBeGreaterThan(0)
          expect(w.start).toBeGreaterThanOrEqual(0)
          expect(w.end).toBeGreaterThan(w.start)
          expect(w.end).toBeLessThanOrEqual(duration + 0.02)
          expect(w.confidence).toBeGreaterThanOrEqual(0)
          expect(w.confidence).toBeLessThanOrEqual(1)
        }
        for (let k = 1; k < r.length; k++) expect(r[k]!.start).toBeGreaterThanOrEqual(r[k - 1]!.end - 1e-9)
      }
    })

    it('gives the same words for the same audio, whatever it heard before', async () => {
      const first = await hear(clips[1]!)
      await Promise.all(clips.map((c) => hear(c)))
      expect(await hear(clips[1]!)).toEqual(first)
    })

    it('rejects a language it does not have with a SpeechError', async () => {
      await expect(hear(clips[0]!, { language: 'xx' })).rejects.toBeInstanceOf(SpeechError)
    })

    it('rejects an aborted call with an AbortError, and keeps working', async () => {
      const expected = await hear(clips[0]!)
      await expect(hear(clips[0]!, { signal: AbortSignal.abort() })).rejects.toSatisfy(isAbortError)
      const controller = new AbortController()
      const job = hear(clips[2]!, { signal: controller.signal })
      controller.abort()
      await expect(job).rejects.toSatisfy(isAbortError)
      expect(await hear(clips[0]!)).toEqual(expected)
    })
  })
  return { engine: get, clips: () => clips, texts }
}
