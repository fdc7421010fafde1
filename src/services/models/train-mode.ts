import { mergeProfiles } from '../../voices/merge.js'
import type { VoiceProfile } from '../../voices/types.js'
import type { TrainMode } from '../../store/model-types.js'

export interface ProfileChoice {
  readonly profile: VoiceProfile
  /** Indexes of the samples the profile was measured from. */
  readonly used: readonly number[]
  /** Samples that passed but were left out, with the reason shown as their `quality_reason`. */
  readonly unused: readonly { readonly index: number; readonly reason: string }[]
}

/** Speech beyond this adds little to the measures' stability, so it stops counting for `fast`. */
const ENOUGH_SPEECH_SEC = 20

/**
 * `fast`: the single best sample: the most speech (up to 20 s), with 10 dB of signal-to-noise worth one
 * second of speech. The other passing samples stay `quality_passed` but are not used.
 * `full`: every passing sample merged, weighted by speech time; with three or more samples, those whose F0
 * is over 4 semitones or whose rate is over 30 % from the median are left out (src/voices/merge.ts).
 */
export function chooseProfile(
  mode: TrainMode,
  passed: readonly { readonly index: number; readonly profile: VoiceProfile }[],
): ProfileChoice {
  if (mode === 'fast' || passed.length === 1) {
    const score = (p: VoiceProfile) => Math.min(p.speechSec, ENOUGH_SPEECH_SEC) + Math.min(p.quality.snrDb, 60) / 10
    const best = passed.reduce((a, b) => (score(b.profile) > score(a.profile) ? b : a))
    return { profile: best.profile, used: [best.index], unused: [] }
  }
  const merged = mergeProfiles(passed.map((p) => p.profile))
  const rejected = new Set(merged.rejected)
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
  const f0 = median(passed.map((p) => p.profile.f0.medianHz))
  const rate = median(passed.map((p) => p.profile.rate.syllablesPerSec))
  return {
    profile: merged.profile,
    used: passed.filter((_, i) => !rejected.has(i)).map((p) => p.index),
    unused: passed
      .filter((_, i) => rejected.has(i))
      .map(({ index, profile: p }) => ({
        index,
        reason:
          `outlier: F0 ${p.f0.medianHz.toFixed(0)} Hz and ${p.rate.syllablesPerSec.toFixed(1)} syllables/s are far from ` +
          `the other samples (${f0.toFixed(0)} Hz, ${rate.toFixed(1)} syllables/s); another speaker? Left out of the voice`,
      })),
  }
}
