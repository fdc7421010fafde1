import type { TimbreDescriptor } from '../audio/dsp/spectrum.js'

/** Bumped whenever a field's meaning or the analysis behind it changes; older profiles are re-analysed. */
export const VOICE_PROFILE_VERSION = 1

/**
 * Where a profile came from. The analysis leaves `sources` empty; the caller records the stored samples
 * so that a neural engine plugged in later can take the raw reference audio (and its transcript) instead
 * of the measured profile.
 */
export interface VoiceSource {
  /** Blob-store key of the stored sample (as uploaded, or after enhancement). */
  readonly key: string
  /** Hex SHA-256 of the sample's bytes; also the reference-analysis cache key. */
  readonly sha256: string
  /** Transcript of the sample, when known (given by the client or from ASR). */
  readonly text?: string
  readonly durationSec?: number
}

/**
 * What Parla measured about a speaker's voice: everything the DSP adaptation needs (pitch, pitch range,
 * speaking rate, timbre, loudness), plus quality figures for training decisions. Plain JSON: numbers,
 * strings, arrays, no `undefined` values, so it can be stored and compared as is.
 */
export interface VoiceProfile {
  readonly version: typeof VOICE_PROFILE_VERSION
  /** Length of the analysed audio as given, seconds (before trimming). */
  readonly durationSec: number
  /** Time the voice-activity detector marked as speech, seconds: pauses of 120 ms or more are excluded. */
  readonly speechSec: number
  /** `speechSec / durationSec`: low values mean mostly silence or noise. */
  readonly voicedRatio: number
  readonly f0: {
    /** Median F0 of voiced frames, Hz: the voice's pitch. Typical: men 85..155, women 165..255. */
    readonly medianHz: number
    /** 10th percentile of voiced F0, Hz. */
    readonly p10Hz: number
    /** 90th percentile of voiced F0, Hz. */
    readonly p90Hz: number
    /** Width from `p10Hz` to `p90Hz` in semitones: how much the intonation moves (monotone speech: < 3). */
    readonly rangeSemitones: number
    /** Share of speech frames (10 ms) with a detected F0, 0..1. */
    readonly voicedFrameRatio: number
  }
  readonly rate: {
    /** Syllables per second of speech (pauses excluded): articulation rate. Typical English: 3.5..6. */
    readonly syllablesPerSec: number
    /** Syllables counted or estimated. */
    readonly syllables: number
    /** `transcript`: counted from the given text; `energy-peaks`: estimated from intensity peaks (±10 %). */
    readonly method: 'transcript' | 'energy-peaks'
  }
  /** Long-term average spectral envelope and formant estimates (src/audio/dsp/spectrum.ts). */
  readonly timbre: TimbreDescriptor
  readonly loudness: {
    /** RMS level of speech frames, dBFS. */
    readonly rmsDbfs: number
    /** Highest absolute sample, dBFS. */
    readonly peakDbfs: number
  }
  readonly quality: {
    /** Share of samples at or beyond ±0.999 full scale, 0..1. */
    readonly clippingRatio: number
    /** Speech level over background level in dB, capped at 80 (digital silence between words). */
    readonly snrDb: number
  }
  /** The samples this profile was measured from; filled by the caller (see `VoiceSource`). */
  readonly sources: readonly VoiceSource[]
}

export interface AnalyzeOptions {
  /** What is said in the clip; speaking rate is counted from it. Without it, syllables are estimated. */
  readonly transcript?: string
  readonly signal?: AbortSignal
}
