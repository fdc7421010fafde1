/**
 * One profile from several samples of the same speaker (`train_mode: full`). Samples whose F0 lies more
 * than 4 semitones, or whose speaking rate lies more than 30 % from the others' median, are dropped as
 * outliers (another speaker, singing, a bad transcript); the rest are weighted by their speech time.
 */
import { SpeechError } from '../errors.js'
import { median } from '../audio/dsp/stats.js'
import type { TimbreDescriptor } from '../audio/dsp/spectrum.js'
import { slope } from '../audio/dsp/spectrum.js'
import type { VoiceProfile } from './types.js'

export interface MergeResult {
  readonly profile: VoiceProfile
  /** Indexes (into the input) of the samples left out as outliers. */
  readonly rejected: readonly number[]
}

export function mergeProfiles(profiles: readonly VoiceProfile[]): MergeResult {
  if (profiles.length === 0) throw new SpeechError('internal_error', '[voice-merge] no profiles to merge')
  const logF0 = profiles.map((p) => Math.log2(p.f0.medianHz))
  const rates = profiles.map((p) => p.rate.syllablesPerSec)
  const f0Centre = median(logF0)
  const rateCentre = median(rates)
  const rejected: number[] = []
  const kept: VoiceProfile[] = []
  profiles.forEach((p, i) => {
    const far = Math.abs(12 * (logF0[i]! - f0Centre)) > 4 || Math.abs(rates[i]! / rateCentre - 1) > 0.3
    const outlier = profiles.length >= 3 && far
    if (outlier) rejected.push(i)
    else kept.push(p)
  })
  if (kept.length === 1) return { profile: kept[0]!, rejected }
  const total = kept.reduce((sum, p) => sum + p.speechSec, 0)
  const w = kept.map((p) => p.speechSec / total)
  const avg = (pick: (p: VoiceProfile) => number) => kept.reduce((sum, p, i) => sum + w[i]! * pick(p), 0)
  const r = (v: number, digits: number) => Math.round(v * 10 ** digits) / 10 ** digits
  const durationSec = kept.reduce((sum, p) => sum + p.durationSec, 0)
  const syllables = kept.reduce((sum, p) => sum + p.rate.syllables, 0)
  const first = kept[0]!
  return {
    rejected,
    profile: {
      version: first.version,
      durationSec: r(durationSec, 3),
      speechSec: r(total, 3),
      voicedRatio: r(total / durationSec, 3),
      f0: {
        medianHz: r(2 ** avg((p) => Math.log2(p.f0.medianHz)), 2),
        p10Hz: r(2 ** avg((p) => Math.log2(p.f0.p10Hz)), 2),
        p90Hz: r(2 ** avg((p) => Math.log2(p.f0.p90Hz)), 2),
        rangeSemitones: r(avg((p) => p.f0.rangeSemitones), 2),
        voicedFrameRatio: r(avg((p) => p.f0.voicedFrameRatio), 3),
      },
      rate: {
        syllablesPerSec: r(syllables / total, 3),
        syllables,
        method: kept.every((p) => p.rate.method === 'transcript') ? 'transcript' : 'energy-peaks',
      },
      timbre: mergeTimbre(kept.map((p) => p.timbre), w),
      loudness: {
        rmsDbfs: r(10 * Math.log10(avg((p) => 10 ** (p.loudness.rmsDbfs / 10))), 2),
        peakDbfs: Math.max(...kept.map((p) => p.loudness.peakDbfs)),
      },
      quality: {
        clippingRatio: r(avg((p) => p.quality.clippingRatio), 6),
        snrDb: r(Math.min(...kept.map((p) => p.quality.snrDb)), 1),
      },
      sources: kept.flatMap((p) => p.sources),
    },
  }
}

function mergeTimbre(parts: readonly TimbreDescriptor[], w: readonly number[]): TimbreDescriptor {
  const length = Math.min(...parts.map((t) => t.envelopeDb.length))
  const at = (k: number) => parts.reduce((sum, t, i) => sum + w[i]! * t.envelopeDb[k]!, 0)
  const envelope = Array.from({ length }, (_, k) => at(k))
  const mean = envelope.reduce((a, b) => a + b, 0) / length
  const envelopeDb = envelope.map((v) => Math.round((v - mean) * 100) / 100)
  const withFormants = parts.map((t, i) => ({ f: t.formantsHz, w: w[i]! })).filter((x) => x.f !== null)
  const fw = withFormants.reduce((sum, x) => sum + x.w, 0)
  const formant = (k: 0 | 1 | 2) => Math.round(withFormants.reduce((sum, x) => sum + x.w * x.f![k], 0) / fw)
  const first = parts[0]!
  return {
    minHz: first.minHz,
    pointsPerOctave: first.pointsPerOctave,
    envelopeDb,
    centroidHz: Math.round(parts.reduce((sum, t, i) => sum + w[i]! * t.centroidHz, 0)),
    tiltDbPerOctave: Math.round(slope(envelopeDb) * first.pointsPerOctave * 100) / 100,
    formantsHz: withFormants.length > 0 ? [formant(0), formant(1), formant(2)] : null,
    frames: parts.reduce((sum, t) => sum + t.frames, 0),
  }
}
