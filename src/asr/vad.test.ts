import { beforeAll, describe, expect, it } from 'vitest'
import { buildProgram, SENTENCES, speakAll, type Program } from '../../test/support/asr-speech.js'
import { resampleAll } from '../audio/resample.js'
import { float32ToInt16 } from '../audio/signal.js'
import { detectSpeech } from './vad.js'
import { splitLongRegion } from './vad-split.js'

let program: Program
let pcm: Float32Array

beforeAll(async () => {
  const clips = await speakAll(SENTENCES.slice(0, 6))
  program = buildProgram(clips, SENTENCES.slice(0, 6), 1.5)
  pcm = resampleAll(program.samples, program.sampleRate, 16000)
})

describe('detectSpeech', () => {
  it('returns nothing for digital silence and for faint noise', async () => {
    expect(await detectSpeech(new Float32Array(16000 * 5))).toEqual([])
    const hiss = new Float32Array(16000 * 5).map(() => (Math.random() - 0.5) * 0.002)
    expect(await detectSpeech(hiss)).toEqual([])
  })

  it('finds each sentence, padded but within 0.3 s of the sound', async () => {
    const spans = await detectSpeech(pcm)
    expect(spans.length).toBe(program.truth.length)
    spans.forEach((span, i) => {
      const truth = program.truth[i]!
      expect(span.start).toBeLessThanOrEqual(truth.start)
      expect(span.start).toBeGreaterThan(truth.start - 0.3)
      expect(span.end).toBeGreaterThanOrEqual(truth.end)
      expect(span.end).toBeLessThan(truth.end + 0.3)
    })
  })

  it('finds the same spans in 16-bit samples as in floats; faint hiss stays silence there too', async () => {
    expect(await detectSpeech(float32ToInt16(pcm))).toEqual(await detectSpeech(pcm))
    const hiss = new Int16Array(16000 * 5).map(() => Math.round((Math.random() - 0.5) * 64))
    expect(await detectSpeech(hiss)).toEqual([])
  })

  it('keeps utterances under the limit by cutting at pauses', async () => {
    // Sentences with only their own short pauses between them, about 18 s long.
    const start = Math.round(1.5 * program.sampleRate)
    const joined = resampleAll(program.samples.subarray(start), program.sampleRate, 16000)
    const spans = await detectSpeech(joined, { minSilence: 5, maxSeconds: 8 })
    expect(spans.length).toBeGreaterThan(1)
    for (const s of spans) expect(s.end - s.start).toBeLessThanOrEqual(8)
    for (let i = 1; i < spans.length; i++) expect(spans[i]!.start).toBeGreaterThanOrEqual(spans[i - 1]!.end)
  })

  it('stops on abort', async () => {
    const ac = new AbortController()
    ac.abort()
    await expect(detectSpeech(pcm, { signal: ac.signal })).rejects.toThrow()
  })
})

describe('splitLongRegion', () => {
  it('cuts at the longest pause in the second half of the window', () => {
    const gaps = [{ start: 40, end: 60 }, { start: 120, end: 130 }, { start: 200, end: 205 }]
    const region = { start: 0, end: 300, gaps }
    const pieces = splitLongRegion(region, 150)
    // 0..150: the pause at 120 is in the second half; 130..280: none is, so the longest anywhere (200).
    expect(pieces.map((p) => [p.start, p.end])).toEqual([[0, 120], [130, 200], [205, 300]])
  })

  it('cuts hard when there is no pause', () => {
    const pieces = splitLongRegion({ start: 0, end: 250, gaps: [] }, 100)
    expect(pieces.map((p) => [p.start, p.end])).toEqual([[0, 100], [100, 200], [200, 250]])
  })
})
