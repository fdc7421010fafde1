import { describe, expect, it } from 'vitest'
import type { EngineWord } from '../../engines/tts/types.js'
import { audibleEdges } from './audible-edges.js'

const RATE = 16000

/** A 200 Hz tone between `from` and `to` seconds that rises over `rise` and decays over `decay` (linear, dB). */
function burst(out: Float32Array, from: number, to: number, rise = 0, decay = 0): void {
  for (let i = Math.round(from * RATE); i < Math.round((to + decay) * RATE) && i < out.length; i++) {
    const t = i / RATE
    const db = t < from + rise ? -60 * (1 - (t - from) / rise) : t > to ? (-60 * (t - to)) / decay : 0
    out[i] = 0.5 * 10 ** (db / 20) * Math.sin(2 * Math.PI * 200 * t)
  }
}

const word = (text: string, start: number, end: number): EngineWord => ({ text, start, end, charStart: 0, charEnd: text.length })

describe('audibleEdges', () => {
  // "one" sounds 0.10–0.40 s and rings 60 dB down over 0.12 s; "two" rises over 0.12 s from 0.70 s.
  const samples = new Float32Array(RATE)
  burst(samples, 0.1, 0.4, 0, 0.12)
  burst(samples, 0.7, 0.9, 0.12, 0)
  const words = [word('one', 0.1, 0.4), word('two', 0.7, 0.9)]

  it('moves edges at a pause onto the sound: the ring of an end, the rise of a start', () => {
    const { words: out, peak } = audibleEdges({ words, samples, rate: RATE, startSec: 0, whole: true })
    // 45 dB down a 60 dB-per-0.12 s slope is 0.09 s in, give or take a 5 ms frame.
    expect(out[0]!.start).toBeCloseTo(0.1, 2)
    expect(out[0]!.end).toBeGreaterThan(0.48)
    expect(out[0]!.end).toBeLessThan(0.5)
    expect(out[1]!.start).toBeGreaterThan(0.72)
    expect(out[1]!.start).toBeLessThan(0.74)
    expect(out[1]!.end).toBeCloseTo(0.9, 2)
    expect(peak).toBeCloseTo(0.5 / Math.SQRT2, 2)
  })

  it('leaves words that touch alone, and never moves an edge into the neighbour', () => {
    const touching = [word('one', 0.1, 0.45), word('two', 0.46, 0.9)]
    expect(audibleEdges({ words: touching, samples, rate: RATE, startSec: 0, whole: true }).words).toEqual(touching)
    const close = [word('one', 0.1, 0.4), word('two', 0.45, 0.9)]
    const out = audibleEdges({ words: close, samples, rate: RATE, startSec: 0, whole: true }).words
    expect(out[0]!.end).toBeLessThanOrEqual(0.45)
  })

  it('in a block of a running stream, edges whose neighbour is not in the block stay', () => {
    const out = audibleEdges({ words: [word('one', 0.1, 0.4)], samples, rate: RATE, startSec: 0, whole: false }).words
    expect(out[0]).toEqual(word('one', 0.1, 0.4))
  })

  it('measures a quiet piece against the louder audio before it', () => {
    const quiet = samples.map((x) => x / 10)
    const alone = audibleEdges({ words, samples: quiet, rate: RATE, startSec: 0, whole: true }).words
    const after = audibleEdges({ words, samples: quiet, rate: RATE, startSec: 0, whole: true }, 0.5 / Math.SQRT2).words
    // 20 dB quieter: against the earlier peak, its ring is gone 20 dB sooner.
    expect(after[0]!.end).toBeLessThan(alone[0]!.end - 0.03)
  })
})
