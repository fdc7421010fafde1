/**
 * From a target profile (the reference speaker) and a base profile (a built-in voice) to the changes that
 * make the base sound like the target: pitch, tempo, formant scale and gain, each split between the
 * engine's own controls (better quality: no DSP artefacts) and Rubber Band. Pure functions.
 */
import { estimateFormantScale, timbreDistance } from '../audio/dsp/timbre-compare.js'
import type { VoiceProfile } from './types.js'

export interface BaseCapabilities {
  /** Whether the engine shifts pitch itself (`SynthesisRequest.pitchSemitones`). */
  readonly pitch: boolean
  /** Whether the engine changes speaking rate itself (`SynthesisRequest.rate`). */
  readonly rate: boolean
  /** Largest native shift in either direction, semitones; the rest goes to DSP. Default 12. */
  readonly maxNativePitchSemitones?: number
  /** Native rate range; the rest goes to DSP. Default [0.5, 2]. */
  readonly nativeRateRange?: readonly [number, number]
}

export interface AdaptationPlan {
  /** Total pitch change, semitones (target median F0 over base median F0). */
  readonly pitchSemitones: number
  /** Total tempo factor: 1.2 speaks 20 % faster (target syllable rate over base syllable rate). */
  readonly rate: number
  /** Formant (spectral envelope) scale for the base: 1.1 moves its formants 10 % up. */
  readonly formantScale: number
  /** Gain after synthesis, dB, so speech level matches the target without pushing peaks over -1 dBFS. */
  readonly gainDb: number
  /** What to ask the engine for: `SynthesisRequest.pitchSemitones` and `.rate` (0 and 1 = leave alone). */
  readonly native: { readonly pitchSemitones: number; readonly rate: number }
  /** What is left for Rubber Band, as `stretchAndShift` options. */
  readonly dsp: { readonly pitchScale: number; readonly timeRatio: number; readonly formantScale: number }
  /** False when `dsp` is the identity and Rubber Band can be skipped. */
  readonly needsDsp: boolean
}

/** Limits of the adaptation: beyond these DSP artefacts outweigh the likeness. */
export const LIMITS = { pitchSemitones: 12, rate: [0.5, 2], formant: [0.8, 1.25] } as const
/** Formant scales are only used when they cut the envelope mismatch by this much (dB and share). */
const FORMANT_MIN_GAIN_DB = 0.2
const FORMANT_MIN_GAIN_SHARE = 0.1

const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v))
const round = (v: number, digits: number) => Math.round(v * 10 ** digits) / 10 ** digits

export function planAdaptation(
  target: VoiceProfile,
  base: VoiceProfile,
  baseCaps: BaseCapabilities,
): AdaptationPlan {
  const maxShift = LIMITS.pitchSemitones
  let pitchSemitones = clamp(12 * Math.log2(target.f0.medianHz / base.f0.medianHz), -maxShift, maxShift)
  if (!Number.isFinite(pitchSemitones) || Math.abs(pitchSemitones) < 0.1) pitchSemitones = 0
  let rate = clamp(target.rate.syllablesPerSec / base.rate.syllablesPerSec, LIMITS.rate[0], LIMITS.rate[1])
  if (!Number.isFinite(rate) || Math.abs(rate - 1) < 0.01) rate = 1
  const formantScale = planFormantScale(target, base)
  const headroom = -1 - base.loudness.peakDbfs
  const gainDb = clamp(Math.min(target.loudness.rmsDbfs - base.loudness.rmsDbfs, headroom), -24, 24)

  const maxNative = baseCaps.maxNativePitchSemitones ?? 12
  const nativePitch = baseCaps.pitch ? clamp(pitchSemitones, -maxNative, maxNative) : 0
  const [rateLo, rateHi] = baseCaps.nativeRateRange ?? [0.5, 2]
  const nativeRate = baseCaps.rate ? clamp(rate, rateLo, rateHi) : 1
  const dsp = {
    pitchScale: round(2 ** ((pitchSemitones - nativePitch) / 12), 5),
    timeRatio: round(nativeRate / rate, 5),
    formantScale,
  }
  return {
    pitchSemitones: round(pitchSemitones, 3),
    rate: round(rate, 4),
    formantScale,
    gainDb: round(gainDb, 2),
    native: { pitchSemitones: round(nativePitch, 3), rate: round(nativeRate, 4) },
    dsp,
    needsDsp: dsp.pitchScale !== 1 || dsp.timeRatio !== 1 || dsp.formantScale !== 1,
  }
}

/** The measured formant scale, or 1 when it does not clearly explain the envelope difference. */
export function planFormantScale(target: VoiceProfile, base: VoiceProfile): number {
  if (target.timbre.frames < 20 || base.timbre.frames < 20) return 1
  const [min, max] = LIMITS.formant
  // Compared above the second harmonic of either voice: lower, a pitch difference would pass for a formant shift.
  const lowHz = 2 * Math.max(target.f0.medianHz, base.f0.medianHz)
  const estimate = estimateFormantScale(target.timbre, base.timbre, { min, max, lowHz })
  const gain = estimate.costAtOneDb - estimate.costDb
  if (gain < FORMANT_MIN_GAIN_DB || gain < FORMANT_MIN_GAIN_SHARE * estimate.costAtOneDb) return 1
  const scale = round(estimate.scale, 3)
  return Math.abs(scale - 1) < 0.02 ? 1 : scale
}

export interface BaseVoiceCandidate {
  readonly id: string
  readonly profile: VoiceProfile
  readonly languages: readonly string[]
}

export interface BaseVoiceChoice<C extends BaseVoiceCandidate = BaseVoiceCandidate> {
  readonly candidate: C
  /** Lower is closer: |pitch gap| / 6 semitones + timbre distance / 3 dB + 0.3 for a regional mismatch. */
  readonly score: number
  readonly pitchSemitones: number
  readonly timbreDb: number
}

/**
 * The candidate that speaks `language` and is closest to `target` in F0 (which mostly decides gender) and
 * timbre; undefined when none speaks the language. `en` matches `en-us`; `en-gb` prefers `en-gb` voices.
 */
export function chooseBaseVoice<C extends BaseVoiceCandidate>(
  target: VoiceProfile,
  candidates: readonly C[],
  language: string,
): BaseVoiceChoice<C> | undefined {
  const wanted = language.toLowerCase()
  const primary = wanted.split('-')[0]!
  let best: BaseVoiceChoice<C> | undefined
  for (const candidate of candidates) {
    const langs = candidate.languages.map((l) => l.toLowerCase())
    const samePrimary = langs.some((l) => l.split('-')[0] === primary)
    if (!samePrimary) continue
    // `en` is satisfied by any English voice; `en-gb` only fully by an `en-gb` one.
    const exact = langs.includes(wanted) || !wanted.includes('-')
    const pitchSemitones = 12 * Math.log2(target.f0.medianHz / candidate.profile.f0.medianHz)
    const timbreDb = timbreDistance(target.timbre, candidate.profile.timbre)
    const score = Math.abs(pitchSemitones) / 6 + timbreDb / 3 + (exact ? 0 : 0.3)
    if (!best || score < best.score) best = { candidate, score, pitchSemitones, timbreDb }
  }
  return best
}
