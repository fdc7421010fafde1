/**
 * Whether a sample is good enough to train a voice from, with the reason when it is not. The reasons are
 * the ones `quality.audios[].quality_reason` reports.
 */
import { SpeechError } from '../errors.js'
import type { VoiceProfile } from './types.js'

export type QualityReason = 'too_short' | 'clipped' | 'too_noisy' | 'no_speech'

export interface QualityLimits {
  /** Least speech (VAD time) in seconds. Default 2. */
  readonly minSpeechSec?: number
  /** Largest share of clipped samples. Default 0.001 (0.1 %). */
  readonly maxClippingRatio?: number
  /** Lowest speech-to-background ratio in dB. Default 15. */
  readonly minSnrDb?: number
}

export interface QualityVerdict {
  readonly passed: boolean
  readonly reason: QualityReason | null
  /** Human-readable, says what to fix. */
  readonly message: string
}

/** Marks the SpeechError that `analyzeVoice` throws when it finds no speech at all. */
export const NO_SPEECH = Object.freeze({ reason: 'no_speech' as const })

export function isNoSpeechError(err: unknown): boolean {
  return err instanceof SpeechError && err.cause === NO_SPEECH
}

export function assessQuality(profile: VoiceProfile, limits: QualityLimits = {}): QualityVerdict {
  const minSpeech = limits.minSpeechSec ?? 2
  const maxClipping = limits.maxClippingRatio ?? 0.001
  const minSnr = limits.minSnrDb ?? 15
  if (profile.speechSec < minSpeech) {
    const have = profile.speechSec.toFixed(1)
    return fail('too_short', `too short: ${have} s of speech, need at least ${minSpeech} s`)
  }
  if (profile.quality.clippingRatio > maxClipping) {
    const share = (profile.quality.clippingRatio * 100).toFixed(2)
    return fail('clipped', `clipped: ${share} % of samples at full scale; record at a lower level`)
  }
  if (profile.quality.snrDb < minSnr) {
    const snr = profile.quality.snrDb.toFixed(0)
    return fail('too_noisy', `too noisy: speech is ${snr} dB above the background, need ${minSnr} dB`)
  }
  return { passed: true, reason: null, message: 'ok' }
}

function fail(reason: QualityReason, message: string): QualityVerdict {
  return { passed: false, reason, message }
}
