import { describe, expect, it } from 'vitest'
import { createResampler, resampleAll } from './resample.js'
import { concatSamples, rms } from './signal.js'
import { irregularBlocks, maxJump, sine, zeroCrossingFrequency } from '../../test/support/audio.js'

const PAIRS = [
  [22050, 44100],
  [24000, 44100],
  [16000, 48000],
  [44100, 16000],
  [48000, 24000],
  [44100, 48000],
  [8000, 22050],
] as const

describe('createResampler', () => {
  it('is the identity when the rates match', () => {
    const x = sine(440, 0.1, 24000)
    const r = createResampler(24000, 24000)
    expect(r.process(x)).toBe(x)
    expect(r.flush()).toHaveLength(0)
    expect(resampleAll(x, 24000, 24000)).toBe(x)
  })

  for (const [from, to] of PAIRS) {
    it(`${from} -> ${to}: keeps a tone's frequency, amplitude and timing; exact length`, () => {
      const freq = 1000
      const x = sine(freq, 1, from, 0.5)
      const y = resampleAll(x, from, to)
      expect(y.length).toBe(Math.ceil((x.length * to) / from))
      const middle = y.subarray(Math.round(to * 0.05), Math.round(to * 0.95))
      expect(Math.abs(zeroCrossingFrequency(middle, to) - freq)).toBeLessThan(freq * 0.001)
      // 0.5 amplitude -> RMS 0.3536; within 0.1 dB
      expect(Math.abs(20 * Math.log10(rms(middle) / (0.5 / Math.SQRT2)))).toBeLessThan(0.1)
      // No delay: the output follows the ideal tone sampled at the new rate.
      let worst = 0
      for (let i = Math.round(to * 0.05); i < Math.round(to * 0.95); i++) {
        worst = Math.max(worst, Math.abs(y[i]! - 0.5 * Math.sin((2 * Math.PI * freq * i) / to)))
      }
      expect(worst).toBeLessThan(1e-3)
    })

    it(`${from} -> ${to}: block joins are seamless (streamed == one-shot, bounded sample steps)`, () => {
      const freq = 440
      const x = sine(freq, 0.7, from, 0.8)
      const r = createResampler(from, to)
      const blocks = irregularBlocks(x, from + to, 700).map((b) => r.process(b))
      blocks.push(r.process(new Float32Array(0)))
      blocks.push(r.flush())
      const streamed = concatSamples(blocks)
      const oneShot = resampleAll(x, from, to)
      expect(streamed.length).toBe(oneShot.length)
      let diff = 0
      for (let i = 0; i < streamed.length; i++) diff = Math.max(diff, Math.abs(streamed[i]! - oneShot[i]!))
      expect(diff).toBeLessThan(1e-6)
      // A sine's largest step between samples is 2*pi*f*A/rate; any block-join glitch would exceed it.
      const bound = ((2 * Math.PI * freq * 0.8) / to) * 1.02
      expect(maxJump(streamed.subarray(Math.round(to * 0.01), streamed.length - Math.round(to * 0.01)))).toBeLessThan(bound)
    })
  }

  it('filters out what the new rate cannot carry (no aliasing)', () => {
    const y = resampleAll(sine(10_000, 0.5, 44100, 0.5), 44100, 16000)
    const middle = y.subarray(800, y.length - 800)
    expect(20 * Math.log10(rms(middle) / 0.3536)).toBeLessThan(-60)
  })

  it('refuses use after flush', () => {
    const r = createResampler(16000, 24000)
    r.process(sine(100, 0.01, 16000))
    r.flush()
    expect(() => r.process(new Float32Array(10))).toThrow(/after flush/)
  })

})
