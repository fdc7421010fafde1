/** Hand-made profiles for the pure adaptation tests. */
import { fakeTimbre } from './dsp-signals.js'
import type { VoiceProfile } from '../../src/voices/types.js'

export interface FakeProfileOptions {
  readonly f0?: number
  readonly rate?: number
  readonly rmsDbfs?: number
  readonly peakDbfs?: number
  readonly formantScale?: number
  readonly speechSec?: number
}

export function fakeProfile(o: FakeProfileOptions = {}): VoiceProfile {
  const f0 = o.f0 ?? 170
  const speechSec = o.speechSec ?? 8
  const rate = o.rate ?? 4.5
  return {
    version: 1,
    durationSec: speechSec + 1,
    speechSec,
    voicedRatio: speechSec / (speechSec + 1),
    f0: { medianHz: f0, p10Hz: f0 * 0.88, p90Hz: f0 * 1.13, rangeSemitones: 4.3, voicedFrameRatio: 0.5 },
    rate: { syllablesPerSec: rate, syllables: Math.round(rate * speechSec), method: 'transcript' },
    timbre: fakeTimbre(o.formantScale ?? 1),
    loudness: { rmsDbfs: o.rmsDbfs ?? -22, peakDbfs: o.peakDbfs ?? -6 },
    quality: { clippingRatio: 0, snrDb: 60 },
    sources: [],
  }
}
