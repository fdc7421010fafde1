import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPocketsphinxAligner } from '../../asr/pocketsphinx/index.js'
import { isAbortError } from '../../../errors.js'
import { createFestivalEngine } from '../festival/index.js'
import type { EngineWord, TtsEngine } from '../types.js'
import { collect } from '../../../../test/support/tts-engine-kit.js'
import { timeWords } from './timing.js'
import { estimateWords } from './words.js'

// Real speech with exact word times: festival reports where each word's segments are.
const TEXT = 'The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background, then wait for the well-known quiet evening.'
const aligner = createPocketsphinxAligner()
let festival: TtsEngine
let speech: { samples: Float32Array; words: readonly EngineWord[] }

beforeAll(async () => {
  festival = await createFestivalEngine({ processes: 1 })
  speech = await collect(festival, { text: TEXT, voice: 'slt' })
})
afterAll(() => Promise.all([festival?.close(), aligner.close()]))

/** Largest and mean distance between two lists of the same words' edges, seconds. */
function distance(a: readonly EngineWord[], b: readonly EngineWord[]): { max: number; mean: number } {
  const d = a.flatMap((w, i) => [Math.abs(w.start - b[i]!.start), Math.abs(w.end - b[i]!.end)])
  return { max: Math.max(...d), mean: d.reduce((n, x) => n + x, 0) / d.length }
}

describe('word times by forced alignment', () => {
  it('finds festival\'s own word times in its speech, closer than the pause estimate', async () => {
    const rate = festival.sampleRate
    const aligned = await timeWords(TEXT, speech.samples, rate, aligner)
    // festival names "well-known" as two words; the text (and the alignment) as one.
    const exact = speech.words.filter((w) => w.text !== 'known').map((w) => w.text === 'well' ? { ...w, end: speech.words.find((x) => x.text === 'known')!.end } : w)
    expect(aligned.map((w) => TEXT.slice(w.charStart, w.charEnd))).toEqual(exact.map((w) => TEXT.slice(w.charStart, w.charEnd)))
    const error = distance(aligned, exact)
    expect(error.max).toBeLessThan(0.12)
    expect(error.mean).toBeLessThan(0.03)
    const estimated = distance(estimateWords(TEXT, speech.samples, rate), exact)
    expect(error.mean).toBeLessThan(estimated.mean / 2)
  })

  it('falls back to the pause estimate for words no dictionary holds, and without an aligner', async () => {
    const rate = festival.sampleRate
    const text = TEXT.replace('canoe', 'Zqxwvk')
    expect(await timeWords(text, speech.samples, rate, aligner)).toEqual(estimateWords(text, speech.samples, rate))
    const german = 'Über die Brücke gehen wir nach Hause.'
    expect(await timeWords(german, speech.samples, rate, aligner)).toEqual(estimateWords(german, speech.samples, rate))
    expect(await timeWords(TEXT, speech.samples, rate, undefined)).toEqual(estimateWords(TEXT, speech.samples, rate))
  })

  it('rejects on abort instead of answering with an estimate', async () => {
    const controller = new AbortController()
    const timing = timeWords(TEXT, speech.samples, festival.sampleRate, aligner, controller.signal)
    controller.abort()
    await expect(timing).rejects.toSatisfy(isAbortError)
    // The decoder thread is free again.
    expect((await timeWords(TEXT, speech.samples, festival.sampleRate, aligner)).length).toBe(23)
  })
})
