import { describe, expect, it } from 'vitest'
import { resampleAll } from '../audio/resample.js'
import { stretchAndShift } from '../audio/dsp/rubberband.js'
import { mix, noise, silence } from '../../test/support/dsp-signals.js'
import { timbreDistance } from '../audio/dsp/timbre-compare.js'
import type { SpeechError } from '../errors.js'
import { analyzeVoice } from './analysis.js'
import { assessQuality, isNoSpeechError } from './quality.js'
import { PASSAGES, speech } from '../../test/support/voice-speech.js'

const pct = (measured: number, expected: number) => 100 * (measured / expected - 1)

describe('analyzeVoice', () => {
  it('profiles festival slt: JSON-clean, versioned, plausible figures', async () => {
    const { samples, sampleRate } = await speech(PASSAGES.a)
    const p = await analyzeVoice(samples, sampleRate, { transcript: PASSAGES.a })
    expect(p.version).toBe(1)
    expect(p.sources).toEqual([])
    expect(JSON.parse(JSON.stringify(p))).toEqual(p)
    expect(p.f0.medianHz).toBeGreaterThan(165)
    expect(p.f0.medianHz).toBeLessThan(185)
    expect(p.f0.p10Hz).toBeLessThan(p.f0.medianHz)
    expect(p.f0.p90Hz).toBeGreaterThan(p.f0.medianHz)
    expect(p.rate.method).toBe('transcript')
    expect(p.rate.syllablesPerSec).toBeGreaterThan(3.5)
    expect(p.rate.syllablesPerSec).toBeLessThan(6)
    expect(p.speechSec).toBeLessThan(p.durationSec)
    expect(p.voicedRatio).toBeGreaterThan(0.7)
    expect(p.loudness.rmsDbfs).toBeLessThan(p.loudness.peakDbfs)
    expect(p.quality.clippingRatio).toBe(0)
    expect(p.quality.snrDb).toBeGreaterThan(25)
    expect(assessQuality(p).passed).toBe(true)
  })

  const base = speech(PASSAGES.a).then(async ({ samples, sampleRate }) => ({
    samples,
    sampleRate,
    profile: await analyzeVoice(samples, sampleRate, { transcript: PASSAGES.a }),
  }))

  for (const semitones of [4, -5]) {
    for (const timeRatio of [0.85, 1.2]) {
      it(`measures a reference at ${semitones} st, time ×${timeRatio}: F0 within 3 %, rate within 10 %`, async () => {
        const b = await base
        const pitchScale = 2 ** (semitones / 12)
        const ref = await stretchAndShift(b.samples, b.sampleRate, { pitchScale, timeRatio })
        const p = await analyzeVoice(ref, b.sampleRate, { transcript: PASSAGES.a })
        const blind = await analyzeVoice(ref, b.sampleRate)
        const f0Expected = b.profile.f0.medianHz * 2 ** (semitones / 12)
        const rateExpected = b.profile.rate.syllablesPerSec / timeRatio
        console.log(
          `[analysis] ${semitones} st ×${timeRatio}: ` +
            `F0 ${p.f0.medianHz} Hz (${pct(p.f0.medianHz, f0Expected).toFixed(1)} %), ` +
            `rate ${p.rate.syllablesPerSec} syl/s (${pct(p.rate.syllablesPerSec, rateExpected).toFixed(1)} %), ` +
            `without transcript ${blind.rate.syllablesPerSec} ` +
            `(${pct(blind.rate.syllablesPerSec, rateExpected).toFixed(1)} %)`,
        )
        expect(Math.abs(pct(p.f0.medianHz, f0Expected))).toBeLessThan(3)
        expect(Math.abs(pct(p.rate.syllablesPerSec, rateExpected))).toBeLessThan(10)
        expect(blind.rate.method).toBe('energy-peaks')
        expect(Math.abs(pct(blind.rate.syllablesPerSec, rateExpected))).toBeLessThan(20)
      })
    }
  }

  it('gives the same F0 and timbre at 16, 22.05 and 44.1 kHz input', async () => {
    const b = await base
    for (const rate of [16000, 22050, 44100]) {
      const p = await analyzeVoice(resampleAll(b.samples, b.sampleRate, rate), rate, { transcript: PASSAGES.a })
      expect(Math.abs(pct(p.f0.medianHz, b.profile.f0.medianHz))).toBeLessThan(1)
      expect(timbreDistance(p.timbre, b.profile.timbre)).toBeLessThan(0.3)
    }
  })

  it('does not depend on the recording level or a DC offset', async () => {
    const b = await base
    // Before the fixes in pitch.ts (YIN's constant seed) and spectrum.ts (frame mean), a quarter of the level
    // lost about two thirds of the voiced frames, and a -53 dBFS offset bent the envelope by 4 dB at 100 Hz.
    for (const [gain, offset] of [[0.25, 0], [2, 0], [1, 0.003], [0.5, -0.002]] as const) {
      const x = b.samples.map((v) => v * gain + offset)
      const p = await analyzeVoice(x, b.sampleRate, { transcript: PASSAGES.a })
      expect(Math.abs(pct(p.f0.medianHz, b.profile.f0.medianHz))).toBeLessThan(0.5)
      expect(Math.abs(p.f0.voicedFrameRatio - b.profile.f0.voicedFrameRatio)).toBeLessThan(0.02)
      expect(timbreDistance(p.timbre, b.profile.timbre)).toBeLessThan(0.1)
    }
  })

  it('flags noisy, clipped and short samples', async () => {
    const b = await base
    const noisy = await analyzeVoice(mix(b.samples, noise(b.samples.length, 0.05)), b.sampleRate)
    expect(noisy.quality.snrDb).toBeLessThan(15)
    expect(assessQuality(noisy).reason).toBe('too_noisy')
    const loud = b.samples.map((v) => Math.max(-1, Math.min(1, v * 8)))
    const clipped = await analyzeVoice(loud, b.sampleRate)
    expect(clipped.quality.clippingRatio).toBeGreaterThan(0.001)
    expect(assessQuality(clipped).reason).toBe('clipped')
    const short = await analyzeVoice(b.samples.subarray(0, Math.round(1.2 * b.sampleRate)), b.sampleRate)
    expect(assessQuality(short).reason).toBe('too_short')
  })

  it('throws a no-speech SpeechError for silence and noise, bad_request for empty audio', async () => {
    const err = await analyzeVoice(silence(16000, 2), 16000).catch((e: unknown) => e)
    expect(isNoSpeechError(err)).toBe(true)
    expect((err as SpeechError).message).toMatch(/\[voice-analysis\] no speech/)
    expect(isNoSpeechError(await analyzeVoice(noise(32000, 0.2), 16000).catch((e: unknown) => e))).toBe(true)
    await expect(analyzeVoice(new Float32Array(0), 16000)).rejects.toMatchObject({ code: 'bad_request' })
  })

  it('stops on abort', async () => {
    const b = await base
    await expect(analyzeVoice(b.samples, b.sampleRate, { signal: AbortSignal.abort() })).rejects.toThrow(/abort/i)
    const controller = new AbortController()
    const pending = analyzeVoice(b.samples, b.sampleRate, { signal: controller.signal })
    controller.abort()
    await expect(pending).rejects.toThrow(/abort/i)
  })
})
