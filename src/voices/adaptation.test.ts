import { describe, expect, it } from 'vitest'
import { chooseBaseVoice, planAdaptation, planFormantScale } from './adaptation.js'
import { mergeProfiles } from './merge.js'
import { fakeProfile } from '../../test/support/voice-profiles.js'

describe('planAdaptation', () => {
  const base = fakeProfile({ f0: 170, rate: 4.5, rmsDbfs: -22, peakDbfs: -6 })

  it('puts everything into Rubber Band when the engine has no controls', () => {
    const target = fakeProfile({ f0: 170 * 2 ** (4 / 12), rate: 5.4, rmsDbfs: -20, formantScale: 1.1 })
    const plan = planAdaptation(target, base, { pitch: false, rate: false })
    expect(plan.pitchSemitones).toBeCloseTo(4, 2)
    expect(plan.rate).toBeCloseTo(1.2, 3)
    expect(plan.formantScale).toBeCloseTo(1.1, 2)
    expect(plan.gainDb).toBeCloseTo(2, 2)
    expect(plan.native).toEqual({ pitchSemitones: 0, rate: 1 })
    expect(plan.dsp.pitchScale).toBeCloseTo(2 ** (4 / 12), 4)
    expect(plan.dsp.timeRatio).toBeCloseTo(1 / 1.2, 4)
    expect(plan.dsp.formantScale).toBe(plan.formantScale)
    expect(plan.needsDsp).toBe(true)
  })

  it('uses native pitch and rate when available, leaving only the formant scale to DSP', () => {
    const target = fakeProfile({ f0: 120, rate: 3.6, formantScale: 0.9 })
    const plan = planAdaptation(target, base, { pitch: true, rate: true })
    expect(plan.native.pitchSemitones).toBeCloseTo(12 * Math.log2(120 / 170), 2)
    expect(plan.native.rate).toBeCloseTo(0.8, 3)
    expect(plan.dsp.pitchScale).toBe(1)
    expect(plan.dsp.timeRatio).toBe(1)
    expect(plan.dsp.formantScale).toBeCloseTo(0.9, 2)
  })

  it('splits pitch beyond the native limit and rate outside the native range between engine and DSP', () => {
    const target = fakeProfile({ f0: 170 * 2 ** (10 / 12), rate: 8 })
    const caps = { pitch: true, rate: true, maxNativePitchSemitones: 6, nativeRateRange: [0.8, 1.5] } as const
    const plan = planAdaptation(target, base, caps)
    expect(plan.native.pitchSemitones).toBe(6)
    expect(plan.dsp.pitchScale).toBeCloseTo(2 ** (4 / 12), 4)
    expect(plan.native.rate).toBe(1.5)
    // Total rate 8 / 4.5 = 1.778: the engine gives 1.5, Rubber Band the remaining 1.185.
    expect(plan.dsp.timeRatio).toBeCloseTo(1.5 / (8 / 4.5), 3)
  })

  it('is the identity for the same voice, and skips DSP', () => {
    const plan = planAdaptation(base, base, { pitch: false, rate: false })
    expect(plan).toMatchObject({ pitchSemitones: 0, rate: 1, formantScale: 1, gainDb: 0, needsDsp: false })
    expect(plan.dsp).toEqual({ pitchScale: 1, timeRatio: 1, formantScale: 1 })
  })

  it('clamps extreme targets and keeps peaks under -1 dBFS', () => {
    const target = fakeProfile({ f0: 600, rate: 20, rmsDbfs: 0 })
    const loudBase = fakeProfile({ f0: 90, rate: 4, peakDbfs: -4 })
    const plan = planAdaptation(target, loudBase, { pitch: false, rate: false })
    expect(plan.pitchSemitones).toBe(12)
    expect(plan.rate).toBe(2)
    expect(plan.gainDb).toBe(3)
  })

  it('ignores formant scales that do not clearly explain the envelope difference', () => {
    expect(planFormantScale(fakeProfile({ formantScale: 1.01 }), base)).toBe(1)
    expect(planFormantScale(fakeProfile({ formantScale: 1.15 }), base)).toBeCloseTo(1.15, 2)
    expect(planFormantScale(fakeProfile({ formantScale: 1.6 }), base)).toBe(1.25)
  })
})

describe('chooseBaseVoice', () => {
  const pick = (target: Parameters<typeof chooseBaseVoice>[0], language: string) =>
    chooseBaseVoice(target, candidates, language)?.candidate.id

  const candidates = [
    { id: 'flite-rms', languages: ['en', 'en-us'], profile: fakeProfile({ f0: 101, formantScale: 0.85 }) },
    { id: 'festival-slt', languages: ['en-us'], profile: fakeProfile({ f0: 174, formantScale: 1 }) },
    { id: 'espeak-de', languages: ['de'], profile: fakeProfile({ f0: 200, formantScale: 1.05 }) },
    { id: 'espeak-en-gb', languages: ['en-gb'], profile: fakeProfile({ f0: 120, formantScale: 0.9 }) },
  ]

  it('picks the voice closest in pitch (gender) that speaks the language', () => {
    expect(pick(fakeProfile({ f0: 210 }), 'en')).toBe('festival-slt')
    expect(pick(fakeProfile({ f0: 98, formantScale: 0.86 }), 'en')).toBe('flite-rms')
    expect(pick(fakeProfile({ f0: 98 }), 'de')).toBe('espeak-de')
  })

  it('prefers the exact regional variant, scores timbre, and returns undefined for an unspoken language', () => {
    expect(pick(fakeProfile({ f0: 115, formantScale: 0.9 }), 'en-gb')).toBe('espeak-en-gb')
    const choice = chooseBaseVoice(fakeProfile({ f0: 174, formantScale: 1.2 }), candidates, 'en-us')!
    expect(choice.timbreDb).toBeGreaterThan(0.5)
    expect(choice.pitchSemitones).toBeCloseTo(0, 5)
    expect(pick(fakeProfile(), 'ja')).toBeUndefined()
  })
})

describe('mergeProfiles', () => {
  it('weights by speech time and rejects an outlier speaker', () => {
    const a = { ...fakeProfile({ f0: 160, rate: 4, speechSec: 10 }), sources: [{ key: 'a', sha256: 'aa' }] }
    const b = { ...fakeProfile({ f0: 180, rate: 5, speechSec: 10 }), sources: [{ key: 'b', sha256: 'bb' }] }
    const other = fakeProfile({ f0: 100, rate: 4.5, speechSec: 10 })
    const { profile, rejected } = mergeProfiles([a, b, other])
    expect(rejected).toEqual([2])
    expect(profile.f0.medianHz).toBeCloseTo(Math.sqrt(160 * 180), 0)
    expect(profile.rate.syllablesPerSec).toBeCloseTo(4.5, 2)
    expect(profile.speechSec).toBe(20)
    expect(profile.sources.map((s) => s.key)).toEqual(['a', 'b'])
    expect(profile.timbre.envelopeDb).toHaveLength(153)
  })
})
