import { describe, expect, it } from 'vitest'
import { PASSAGES, speech } from '../../../test/support/voice-speech.js'
import { concatSamples } from '../signal.js'
import { stretchAndShift } from './rubberband.js'
import { harmonicTone, mix, noise, silence } from '../../../test/support/dsp-signals.js'
import { regionsDuration, trimSilence, voicedRegions } from './vad.js'

const RATE = 16000

/** Syllable-like bursts: a tone whose level is modulated at 5 Hz, like speech. */
function burst(seconds: number): Float32Array {
  const x = harmonicTone(RATE, seconds, () => 150)
  for (let i = 0; i < x.length; i++) x[i] = x[i]! * (0.55 + 0.45 * Math.sin((2 * Math.PI * 5 * i) / RATE))
  return x
}

describe('voicedRegions', () => {
  it('finds two utterances in background noise with boundaries within 40 ms', () => {
    const clean = concatSamples([silence(RATE, 0.5), burst(1), silence(RATE, 0.4), burst(0.8), silence(RATE, 0.5)])
    const x = mix(clean, noise(clean.length, 0.003))
    const regions = voicedRegions(x, RATE)
    expect(regions).toHaveLength(2)
    const expected = [[0.5, 1.5], [1.9, 2.7]]
    regions.forEach((r, i) => {
      expect(Math.abs(r.start - expected[i]![0]!)).toBeLessThan(0.04)
      expect(Math.abs(r.end - expected[i]![1]!)).toBeLessThan(0.04)
    })
  })

  it('bridges pauses shorter than 120 ms and keeps longer ones', () => {
    const gap = (seconds: number) => silence(RATE, seconds)
    const x = concatSamples([gap(0.3), burst(0.5), gap(0.08), burst(0.5), gap(0.3), burst(0.5)])
    expect(voicedRegions(x, RATE)).toHaveLength(2)
  })

  it('keeps a faint fricative-like hiss next to a vowel by its zero-crossing rate', () => {
    // About -80 dBFS: under the level thresholds, but far above digital silence and with a high ZCR.
    const hiss = noise(Math.round(0.15 * RATE), 0.0002)
    const x = concatSamples([silence(RATE, 0.3), hiss, burst(0.4), silence(RATE, 0.3)])
    const [region] = voicedRegions(x, RATE)
    expect(region!.start).toBeLessThan(0.33)
  })

  it('finds nothing in silence, steady noise or an empty buffer', () => {
    expect(voicedRegions(silence(RATE, 1), RATE)).toEqual([])
    expect(voicedRegions(noise(RATE, 0.1), RATE)).toEqual([])
    expect(voicedRegions(new Float32Array(0), RATE)).toEqual([])
  })

  it('speech duration of festival speech scales with time-stretching (within 3 %)', async () => {
    const { samples, sampleRate } = await speech(PASSAGES.b)
    const base = regionsDuration(voicedRegions(samples, sampleRate))
    for (const timeRatio of [0.85, 1.2]) {
      const stretched = await stretchAndShift(samples, sampleRate, { timeRatio, pitchScale: 1 })
      const measured = regionsDuration(voicedRegions(stretched, sampleRate))
      expect(Math.abs(measured / (base * timeRatio) - 1)).toBeLessThan(0.03)
    }
  })
})

describe('trimSilence', () => {
  it('cuts leading and trailing silence, keeping 100 ms around the speech', () => {
    const x = concatSamples([silence(RATE, 1), burst(1), silence(RATE, 2)])
    const t = trimSilence(x, RATE)
    expect(Math.abs(t.start / RATE - 0.9)).toBeLessThan(0.04)
    expect(Math.abs(t.end / RATE - 2.1)).toBeLessThan(0.04)
    expect(t.samples.length).toBe(t.end - t.start)
    expect(t.samples[0]).toBe(x[t.start])
  })

  it('returns an empty view when there is no speech', () => {
    const t = trimSilence(silence(RATE, 1), RATE)
    expect(t.samples.length).toBe(0)
  })
})
