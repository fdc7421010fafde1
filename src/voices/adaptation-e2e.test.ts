/**
 * The whole DSP cloning loop on real speech: a reference speaker is made by shifting festival slt (pitch,
 * tempo and for two cases formants), analysed, and the base voice (slt on another text) is adapted with
 * the plan. The adapted audio must land on the reference's F0 and rate and be closer to it in timbre.
 */
import { describe, expect, it } from 'vitest'
import { concatSamples } from '../audio/signal.js'
import { createStretcher, stretchAndShift } from '../audio/dsp/rubberband.js'
import { timbreDistance } from '../audio/dsp/timbre-compare.js'
import { planAdaptation } from './adaptation.js'
import { analyzeVoice } from './analysis.js'
import { PASSAGES, speech } from '../../test/support/voice-speech.js'

const CASES = [
  { semitones: 4, timeRatio: 0.85, formantScale: 1 },
  { semitones: -5, timeRatio: 1.2, formantScale: 1 },
  { semitones: 4, timeRatio: 1.2, formantScale: 1.12 },
  { semitones: -5, timeRatio: 0.85, formantScale: 0.9 },
] as const

const pct = (measured: number, expected: number) => 100 * (measured / expected - 1)

async function setup() {
  const reference = await speech(PASSAGES.a)
  const base = await speech(PASSAGES.b)
  const baseProfile = await analyzeVoice(base.samples, base.sampleRate, { transcript: PASSAGES.b })
  return { reference, base, baseProfile }
}
const ready = setup()

describe('DSP voice adaptation end to end', () => {
  for (const c of CASES) {
    const shift = `${c.semitones > 0 ? '+' : ''}${c.semitones} st`
    const name = `reference = slt ${shift}, time ×${c.timeRatio}, formants ×${c.formantScale}`
    it(`${name}: adapted F0 within 5 %, rate within 10 %, timbre closer than the base`, async () => {
      const { reference, base, baseProfile } = await ready
      const refAudio = await stretchAndShift(reference.samples, reference.sampleRate, {
        pitchScale: 2 ** (c.semitones / 12),
        timeRatio: c.timeRatio,
        formantScale: c.formantScale,
      })
      const target = await analyzeVoice(refAudio, reference.sampleRate, { transcript: PASSAGES.a })
      const plan = planAdaptation(target, baseProfile, { pitch: false, rate: false })
      const adaptedAudio = await stretchAndShift(base.samples, base.sampleRate, plan.dsp)
      const adapted = await analyzeVoice(adaptedAudio, base.sampleRate, { transcript: PASSAGES.b })
      const before = timbreDistance(baseProfile.timbre, target.timbre)
      const after = timbreDistance(adapted.timbre, target.timbre)
      console.log(
        `[clone] ${name}: plan ${plan.pitchSemitones} st, rate ×${plan.rate}, formants ×${plan.formantScale}, ` +
          `${plan.gainDb} dB | F0 ${adapted.f0.medianHz} vs ${target.f0.medianHz} Hz ` +
          `(${pct(adapted.f0.medianHz, target.f0.medianHz).toFixed(1)} %), ` +
          `rate ${adapted.rate.syllablesPerSec} vs ${target.rate.syllablesPerSec} ` +
          `(${pct(adapted.rate.syllablesPerSec, target.rate.syllablesPerSec).toFixed(1)} %), ` +
          `timbre distance ${before.toFixed(2)} -> ${after.toFixed(2)} dB`,
      )
      expect(Math.abs(pct(adapted.f0.medianHz, target.f0.medianHz))).toBeLessThan(5)
      expect(Math.abs(pct(adapted.rate.syllablesPerSec, target.rate.syllablesPerSec))).toBeLessThan(10)
      expect(after).toBeLessThan(before)
      if (c.formantScale !== 1) expect(Math.abs(plan.formantScale - c.formantScale)).toBeLessThan(0.06)
    })
  }

  it('streaming the plan in 0.25 s chunks gives the same F0 and rate as the offline path', async () => {
    const { reference, base, baseProfile } = await ready
    const shift = { pitchScale: 2 ** (-5 / 12), timeRatio: 1.2 }
    const refAudio = await stretchAndShift(reference.samples, reference.sampleRate, shift)
    const target = await analyzeVoice(refAudio, reference.sampleRate, { transcript: PASSAGES.a })
    const plan = planAdaptation(target, baseProfile, { pitch: false, rate: false })
    const stretcher = await createStretcher(base.sampleRate, plan.dsp)
    const chunk = Math.round(0.25 * base.sampleRate)
    const parts: Float32Array[] = []
    for (let at = 0; at < base.samples.length; at += chunk) {
      parts.push(stretcher.process(base.samples.subarray(at, at + chunk)))
    }
    parts.push(stretcher.flush())
    const adapted = await analyzeVoice(concatSamples(parts), base.sampleRate, { transcript: PASSAGES.b })
    console.log(
      `[clone] streamed: F0 ${adapted.f0.medianHz} vs ${target.f0.medianHz} Hz, ` +
        `rate ${adapted.rate.syllablesPerSec} vs ${target.rate.syllablesPerSec}`,
    )
    expect(Math.abs(pct(adapted.f0.medianHz, target.f0.medianHz))).toBeLessThan(5)
    expect(Math.abs(pct(adapted.rate.syllablesPerSec, target.rate.syllablesPerSec))).toBeLessThan(10)
  })
})
