import type { TtsVoice } from '../types.js'

export interface FliteVoice extends TtsVoice {
  /** flite's default `int_f0_target_mean` (Hz), the base for pitch shifts; absent where flite ignores it. */
  readonly f0Mean?: number
}

/** flite's built-in 16 kHz voices. F0 means were measured (median F0 of the default output). */
export const FLITE_VOICES: readonly FliteVoice[] = [
  {
    id: 'slt',
    title: 'SLT (flite)',
    languages: ['en', 'en-us'],
    gender: 'female',
    description: 'US English female, CMU ARCTIC slt, clustergen statistical voice; light and fast.',
    f0Mean: 172,
  },
  {
    id: 'rms',
    title: 'RMS (flite)',
    languages: ['en', 'en-us'],
    gender: 'male',
    description: 'US English male, CMU ARCTIC rms, clustergen voice; the most intelligible flite voice. ' +
      'Ignores pitch changes.',
    pitch: false,
  },
  {
    id: 'awb',
    title: 'AWB (flite)',
    languages: ['en', 'en-gb', 'en-gb-scotland'],
    gender: 'male',
    description: 'Scottish English male, CMU ARCTIC awb, clustergen voice.',
    f0Mean: 132,
  },
  {
    id: 'kal16',
    title: 'KAL (flite diphone)',
    languages: ['en', 'en-us'],
    gender: 'male',
    description: 'US English male, diphone voice (kal, 16 kHz); robotic but very fast.',
    f0Mean: 95,
  },
]
