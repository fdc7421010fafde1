import { describe, expect, it } from 'vitest'
import { PASSAGES, speech } from '../../../test/support/voice-speech.js'
import { resampleAll } from '../resample.js'
import { concatSamples } from '../signal.js'
import { f0Range, isVoicedAt, medianF0, trackPitch, voicedF0 } from './pitch.js'
import { harmonicTone, noise, silence } from '../../../test/support/dsp-signals.js'

describe('trackPitch', () => {
  for (const [rate, hz] of [[16000, 95], [16000, 220], [44100, 130], [22050, 340]] as const) {
    it(`finds ${hz} Hz in a harmonic tone at ${rate} Hz within 1 %`, () => {
      const track = trackPitch(harmonicTone(rate, 1, () => hz), rate)
      expect(Math.abs(medianF0(track) / hz - 1)).toBeLessThan(0.01)
      expect(voicedF0(track.f0).length / track.f0.length).toBeGreaterThan(0.9)
    })
  }

  it('measures the 10th-90th percentile range of an exponential glide (one octave)', () => {
    const rate = 16000
    const track = trackPitch(harmonicTone(rate, 2, (t) => 150 * 2 ** (t / 2)), rate)
    const range = f0Range(track)
    // 80 % of a 12-semitone glide lies between the 10th and 90th percentiles.
    expect(range.semitones).toBeGreaterThan(9.1)
    expect(range.semitones).toBeLessThan(10.1)
    expect(range.lowHz).toBeLessThan(range.highHz)
  })

  it('finds nothing voiced in noise or silence', () => {
    const rate = 16000
    const n = trackPitch(noise(rate * 2, 0.3), rate)
    expect(voicedF0(n.f0).length / n.f0.length).toBeLessThan(0.05)
    const s = trackPitch(silence(rate, 1), rate)
    expect(voicedF0(s.f0).length).toBe(0)
    expect(Number.isNaN(medianF0(s))).toBe(true)
  })

  it('marks the voiced half of tone-then-noise and reports it through isVoicedAt', () => {
    const rate = 16000
    const x = concatSamples([harmonicTone(rate, 1, () => 180), noise(rate, 0.3)])
    const track = trackPitch(x, rate)
    expect(isVoicedAt(track, 0.5)).toBe(true)
    expect(isVoicedAt(track, 1.5)).toBe(false)
    expect(isVoicedAt(track, 99)).toBe(false)
  })

  it('tracks festival slt (about 174 Hz) over 30 s of 16 kHz audio', async () => {
    const parts = await Promise.all([speech(PASSAGES.a), speech(PASSAGES.b), speech(PASSAGES.c)])
    const x = resampleAll(concatSamples(parts.map((p) => p.samples)), parts[0]!.sampleRate, 16000)
    const track = trackPitch(x, 16000)
    expect(medianF0(track)).toBeGreaterThan(165)
    expect(medianF0(track)).toBeLessThan(185)
    // Speed is a benchmark's business (bench/clone.ts), not a test's: this machine's load varies.
  })
})
