import { describe, expect, it } from 'vitest'
import { dbToGain, gainToDb, peak } from './gain.js'
import { createLoudnessMeter, measureLoudness } from './loudness.js'
import { concatSamples } from './signal.js'
import { sine, speechLike } from '../../test/support/audio.js'

describe('gain', () => {
  it('converts between dB and linear gain', () => {
    expect(dbToGain(6.0206)).toBeCloseTo(2, 4)
    expect(gainToDb(0.5)).toBeCloseTo(-6.0206, 3)
    expect(gainToDb(0)).toBe(-Infinity)
  })

  it('finds the peak', () => {
    expect(peak(sine(100, 0.1, 8000, 0.25))).toBeCloseTo(0.25, 3)
    expect(peak(new Float32Array(10))).toBe(0)
  })
})

describe('loudness (BS.1770)', () => {
  for (const rate of [16000, 44100, 48000]) {
    it(`reads a 997 Hz sine at -20 dBFS peak as -23.0 LUFS at ${rate} Hz`, () => {
      expect(measureLoudness(sine(997, 3, rate, 0.1), rate)).toBeCloseTo(-23.01, 1)
    })
  }

  it('weights low frequencies down (K-weighting high pass)', () => {
    expect(measureLoudness(sine(40, 3, 48000, 0.1), 48000)).toBeLessThan(-24.5)
  })

  it('gates out silence between phrases', () => {
    const rate = 24000
    const tone = sine(997, 2, rate, 0.1)
    const gapped = concatSamples([tone, new Float32Array(rate * 4), tone])
    // Ungated, 4 s of silence in 8 s would read 3 dB lower; blocks straddling the edges still count a little.
    const gated = measureLoudness(gapped, rate)
    expect(gated).toBeGreaterThan(-23.6)
    expect(gated).toBeLessThan(-23)
  })

  it('streams: pushing in pieces reads the same as all at once', () => {
    const x = speechLike(3, 22050)
    const meter = createLoudnessMeter(22050)
    for (let i = 0; i < x.length; i += 777) meter.push(x.subarray(i, i + 777))
    expect(meter.integrated()).toBeCloseTo(measureLoudness(x, 22050), 6)
  })

  it('is -Infinity for silence', () => {
    expect(measureLoudness(new Float32Array(48000), 48000)).toBe(-Infinity)
  })
})
