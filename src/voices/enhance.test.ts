import { describe, expect, it } from 'vitest'
import { timbreDistance } from '../audio/dsp/timbre-compare.js'
import { analyzeVoice } from './analysis.js'
import { enhanceSpeech } from './enhance.js'
import { PASSAGES, speech } from '../../test/support/voice-speech.js'

const random = (seed: number) => () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff), seed / 0x7fffffff - 0.5)
const pct = (measured: number, expected: number) => 100 * (measured / expected - 1)

describe('enhanceSpeech (enhance_audio_quality)', () => {
  const clean = speech(PASSAGES.b).then(async (a) => ({ ...a, profile: await analyzeVoice(a.samples, a.sampleRate, { transcript: PASSAGES.b }) }))

  it('leaves a clean recording alone apart from its level', async () => {
    const { samples, sampleRate, profile } = await clean
    const quiet = samples.map((v) => v * 0.1)
    const out = await enhanceSpeech(quiet, sampleRate)
    expect(out.noiseReductionDb).toBe(0)
    expect(out.gainDb).toBeGreaterThan(15)
    const after = await analyzeVoice(out.samples, sampleRate, { transcript: PASSAGES.b })
    expect(timbreDistance(after.timbre, profile.timbre)).toBeLessThan(0.3)
    expect(Math.abs(after.loudness.rmsDbfs - -20)).toBeLessThan(2)
    expect(after.loudness.peakDbfs).toBeLessThanOrEqual(-1)
  })

  it('lowers steady noise by about 10 dB and levels the speech, keeping pitch and most of the timbre', async () => {
    const { samples, sampleRate, profile } = await clean
    const rnd = random(11)
    const noisy = samples.map((v) => 0.5 * v + 0.03 * rnd())
    const before = await analyzeVoice(noisy, sampleRate, { transcript: PASSAGES.b })
    const out = await enhanceSpeech(noisy, sampleRate)
    const after = await analyzeVoice(out.samples, sampleRate, { transcript: PASSAGES.b })
    const [t0, t1] = [timbreDistance(before.timbre, profile.timbre), timbreDistance(after.timbre, profile.timbre)]
    console.log(
      `[enhance] ${(samples.length / sampleRate).toFixed(1)} s at ${sampleRate} Hz: noise -${out.noiseReductionDb} dB, ` +
        `SNR ${before.quality.snrDb} -> ${after.quality.snrDb} dB, timbre distance to the clean voice ${t0.toFixed(2)} -> ${t1.toFixed(2)} dB`,
    )
    expect(out.noiseReductionDb).toBeGreaterThan(8)
    expect(after.quality.snrDb - before.quality.snrDb).toBeGreaterThan(8)
    expect(t1).toBeLessThan(t0)
    expect(Math.abs(pct(after.f0.medianHz, profile.f0.medianHz))).toBeLessThan(2)
    expect(Math.abs(after.loudness.rmsDbfs - -20)).toBeLessThan(2)
    expect(out.samples.length).toBe(noisy.length)
  })

  it('stops on abort', async () => {
    const { samples, sampleRate } = await clean
    const rnd = random(5)
    const noisy = samples.map((v) => 0.5 * v + 0.03 * rnd())
    const controller = new AbortController()
    const pending = enhanceSpeech(noisy, sampleRate, { signal: controller.signal })
    controller.abort()
    await expect(pending).rejects.toThrow()
  })
})
