import { describe, expect, it } from 'vitest'
import { PASSAGES, speech } from '../../../test/support/voice-speech.js'
import { resampleAll } from '../resample.js'
import { stretchAndShift } from './rubberband.js'
import { timbreDescriptor, type TimbreDescriptor } from './spectrum.js'
import { fakeTimbre, harmonicTone, noise } from '../../../test/support/dsp-signals.js'
import { estimateFormantScale, timbreDistance } from './timbre-compare.js'

const RATE = 16000

async function descriptorOf(
  text: string,
  shift?: { formantScale: number; pitchScale: number },
): Promise<TimbreDescriptor> {
  const { samples, sampleRate } = await speech(text)
  const x = shift ? await stretchAndShift(samples, sampleRate, { timeRatio: 1, ...shift }) : samples
  return timbreDescriptor(resampleAll(x, sampleRate, RATE), RATE)
}

describe('timbreDescriptor', () => {
  it('describes festival speech: 100 Hz..8 kHz grid, plausible formants, centroid and tilt', async () => {
    const d = await descriptorOf(PASSAGES.a)
    expect(d.envelopeDb).toHaveLength(Math.floor(24 * Math.log2(8000 * 0.94 / 100)) + 1)
    expect(Math.abs(d.envelopeDb.reduce((a, b) => a + b, 0) / d.envelopeDb.length)).toBeLessThan(0.01)
    const [f1, f2, f3] = d.formantsHz!
    expect(f1).toBeGreaterThan(300)
    expect(f1).toBeLessThan(900)
    expect(f2).toBeGreaterThan(1200)
    expect(f2).toBeLessThan(2300)
    expect(f3).toBeGreaterThan(2300)
    expect(f3).toBeLessThan(3600)
    expect(d.tiltDbPerOctave).toBeLessThan(-3)
    expect(d.centroidHz).toBeGreaterThan(200)
    expect(d.frames).toBeGreaterThan(300)
    expect(JSON.parse(JSON.stringify(d))).toEqual(d)
  })

  it('smooths harmonics away: tones an octave apart are closer to each other than to white noise', () => {
    const low = timbreDescriptor(harmonicTone(RATE, 2, () => 120), RATE)
    const high = timbreDescriptor(harmonicTone(RATE, 2, () => 240), RATE)
    const flat = timbreDescriptor(noise(RATE * 2, 0.3), RATE)
    expect(timbreDistance(low, high)).toBeLessThan(timbreDistance(low, flat))
  })

  it('stops at the Nyquist limit for low sample rates', () => {
    const d = timbreDescriptor(noise(8000, 0.3), 8000)
    expect(100 * 2 ** ((d.envelopeDb.length - 1) / 24)).toBeLessThan(4000)
  })
})

describe('timbreDistance and estimateFormantScale', () => {
  it('distance is zero to itself, symmetric, and small between two texts of the same voice', async () => {
    const a = await descriptorOf(PASSAGES.a)
    const b = await descriptorOf(PASSAGES.b)
    expect(timbreDistance(a, a)).toBe(0)
    expect(timbreDistance(a, b)).toBeCloseTo(timbreDistance(b, a), 6)
    expect(timbreDistance(a, b)).toBeLessThan(1.2)
  })

  it('recovers a synthetic envelope warp exactly', () => {
    for (const scale of [0.85, 1.1, 1.2]) {
      const estimate = estimateFormantScale(fakeTimbre(scale), fakeTimbre(1))
      expect(Math.abs(estimate.scale - scale)).toBeLessThan(0.005)
      expect(estimate.costDb).toBeLessThan(estimate.costAtOneDb)
    }
  })

  for (const [formantScale, pitchScale] of [[1.15, 1], [0.87, 1], [1.15, 1.26]] as const) {
    it(`recovers Rubber Band formant scale ${formantScale} (pitch ×${pitchScale}) within ±0.05`, async () => {
      const reference = await descriptorOf(PASSAGES.a, { formantScale, pitchScale })
      const base = await descriptorOf(PASSAGES.b)
      const estimate = estimateFormantScale(reference, base)
      console.log(
        `[spectrum] formant ×${formantScale} pitch ×${pitchScale}: estimated ${estimate.scale.toFixed(3)}, ` +
          `mismatch ${estimate.costAtOneDb.toFixed(2)} -> ${estimate.costDb.toFixed(2)} dB`,
      )
      expect(Math.abs(estimate.scale - formantScale)).toBeLessThan(0.05)
      expect(timbreDistance(reference, base)).toBeGreaterThan(timbreDistance(await descriptorOf(PASSAGES.c), base))
    })
  }

  it('refuses descriptors on different grids', () => {
    const a = fakeTimbre(1)
    expect(() => timbreDistance(a, { ...a, pointsPerOctave: 12 })).toThrow(/grid/)
  })
})
