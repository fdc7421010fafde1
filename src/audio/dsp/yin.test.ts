import { YIN } from 'pitchfinder'
import { describe, expect, it } from 'vitest'
import { PASSAGES, speech } from '../../../test/support/voice-speech.js'
import { resampleAll } from '../resample.js'
import { harmonicTone, noise } from '../../../test/support/dsp-signals.js'
import { createYin } from './yin.js'

describe('createYin', () => {
  // pitchfinder (a dev dependency) is the reference implementation; how much faster the lazy one is belongs
  // in a benchmark, not here.
  it("gives pitchfinder's answers (voicing and F0) on speech, tones and noise", async () => {
    const slt = await speech(PASSAGES.a)
    const inputs = [resampleAll(slt.samples, slt.sampleRate, 8000), harmonicTone(8000, 1, () => 95), noise(8000, 0.3)]
    const reference = YIN({ sampleRate: 8000, threshold: 0.15 })
    const lazy = createYin(8000, 0.15)
    const frames: Float32Array[] = []
    for (const x of inputs) {
      for (let at = 0; at + 320 <= x.length; at += 80) frames.push(Float32Array.from(x.subarray(at, at + 320), (v) => v * 8))
    }
    let voiced = 0
    for (const frame of frames) {
      const [a, b] = [reference(frame), lazy(frame)]
      expect(b === null).toBe(a === null)
      if (a !== null && b !== null) {
        voiced++
        expect(Math.abs(b / a - 1)).toBeLessThan(1e-5)
      }
    }
    expect(voiced).toBeGreaterThan(frames.length / 3)
  })
})
