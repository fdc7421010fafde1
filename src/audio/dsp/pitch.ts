/**
 * F0 tracking with YIN (yin.ts: pitchfinder's algorithm, computed lazily). YIN costs O(window^2) per frame in
 * pure JS, so the signal is first resampled to 8 kHz: a 40 ms frame then gives YIN a 256-sample window (lags
 * up to 128, i.e. F0 down to 62.5 Hz); with the frame skipping below, 30 s of audio takes about 130 ms
 * (pitchfinder's own YIN computed every lag: 250-350 ms). Octave jumps are folded towards
 * the clip's median and isolated voiced frames are dropped, since medians and percentiles are what callers use.
 */
import { createYin } from './yin.js'
import { resampleAll } from '../resample.js'
import { median, percentile } from './stats.js'

export interface PitchTrack {
  /** Seconds between frame starts. */
  readonly hopSec: number
  /** Frame length in seconds; frame `i` covers `[i * hopSec, i * hopSec + frameSec)`. */
  readonly frameSec: number
  /** F0 per frame in Hz; 0 where the frame is unvoiced. */
  readonly f0: Float32Array
}

export interface PitchOptions {
  /** Lowest F0 accepted, Hz (default 65; the 8 kHz YIN window cannot go below 62.5). */
  readonly minHz?: number
  /** Highest F0 accepted, Hz (default 500). */
  readonly maxHz?: number
  /** Frames quieter than the clip's loud frames by this many dB are unvoiced (default 35). */
  readonly gateDb?: number
}

const RATE = 8000
const FRAME = 320
const HOP = 80
/** Voiced speech at 8 kHz crosses zero far less often than this; fricatives and noise more. */
const MAX_VOICED_ZCR = 0.35
/** Mean-square level (dB) the loud frames (95th percentile) are scaled to before YIN; see trackPitch. */
const REFERENCE_DB = -19

function zcr(x: Float32Array, from: number, length: number): number {
  let crossings = 0
  for (let i = from + 1; i < from + length; i++) if ((x[i]! >= 0) !== (x[i - 1]! >= 0)) crossings++
  return crossings / length
}

export function trackPitch(samples: Float32Array, sampleRate: number, options: PitchOptions = {}): PitchTrack {
  const minHz = Math.max(62.5, options.minHz ?? 65)
  const maxHz = options.maxHz ?? 500
  const x = withoutDc(sampleRate === RATE ? samples : resampleAll(samples, sampleRate, RATE))
  const count = x.length < FRAME ? 0 : 1 + Math.floor((x.length - FRAME) / HOP)
  const f0 = new Float32Array(count)
  const energy = new Float32Array(count)
  for (let f = 0; f < count; f++) {
    let sum = 0
    for (let i = f * HOP; i < f * HOP + FRAME; i++) sum += x[i]! * x[i]!
    energy[f] = 10 * Math.log10(sum / FRAME + 1e-12)
  }
  const gate = percentile(energy, 95) - (options.gateDb ?? 35)
  const detect = createYin(RATE, 0.15)
  const frame = new Float32Array(FRAME)
  // pitchfinder's YIN (yin.ts keeps its behaviour) seeds its cumulative mean with a constant 1, so its
  // voicing depends on absolute level: frames far below about -20 dB look periodic at ~3 kHz and are then
  // rejected. That acts as a soft gate relative to the loud frames, which the figures in docs/voice-cloning.md
  // were tuned with, but it made F0 coverage and the timbre frames change with recording level. The clip is
  // therefore scaled so its loud frames sit at REFERENCE_DB: same behaviour at every input level.
  const gain = 10 ** ((REFERENCE_DB - percentile(energy, 95)) / 20)
  const run = (f: number) => {
    if (energy[f]! < gate || energy[f]! < -70 || zcr(x, f * HOP, FRAME) > MAX_VOICED_ZCR) return 0
    for (let i = 0; i < FRAME; i++) frame[i] = x[f * HOP + i]! * gain
    const hz = detect(frame)
    return hz !== null && Number.isFinite(hz) && hz >= minHz * 0.5 && hz <= maxHz * 2 ? hz : 0
  }
  // YIN dominates the cost, so it runs on even frames first; an odd frame between two voiced frames
  // within 3 % of each other takes their geometric mean, and only the others are analysed.
  for (let f = 0; f < count; f += 2) f0[f] = run(f)
  for (let f = 1; f < count; f += 2) {
    const prev = f0[f - 1]!
    const next = f + 1 < count ? f0[f + 1]! : 0
    f0[f] = prev > 0 && next > 0 && Math.abs(Math.log(prev / next)) < 0.03 ? Math.sqrt(prev * next) : run(f)
  }
  foldOctaves(f0, minHz, maxHz)
  smooth(f0)
  return { hopSec: HOP / RATE, frameSec: FRAME / RATE, f0 }
}

/** A constant offset would change the zero-crossing rate of quiet frames, and with it which frames are voiced. */
function withoutDc(x: Float32Array): Float32Array {
  let sum = 0
  for (let i = 0; i < x.length; i++) sum += x[i]!
  const mean = x.length > 0 ? sum / x.length : 0
  if (Math.abs(mean) < 1e-6) return x
  const out = new Float32Array(x.length)
  for (let i = 0; i < x.length; i++) out[i] = x[i]! - mean
  return out
}

// YIN's typical failure is a jump of one octave; move such frames to whichever octave is closer to the median.
function foldOctaves(f0: Float32Array, minHz: number, maxHz: number): void {
  const centre = median(voicedF0(f0))
  for (let f = 0; f < f0.length; f++) {
    let hz = f0[f]!
    if (hz === 0) continue
    while (hz > centre * 1.6 && hz / 2 >= minHz) hz /= 2
    while (hz < centre / 1.6 && hz * 2 <= maxHz) hz *= 2
    f0[f] = hz >= minHz && hz <= maxHz ? hz : 0
  }
}

// Median of 5 over voiced neighbours, and voiced runs under 3 frames (30 ms) removed.
function smooth(f0: Float32Array): void {
  const copy = Float32Array.from(f0)
  const window: number[] = []
  for (let f = 0; f < f0.length; f++) {
    if (copy[f] === 0) continue
    window.length = 0
    for (let k = Math.max(0, f - 2); k <= Math.min(f0.length - 1, f + 2); k++) {
      if (copy[k]! > 0) window.push(copy[k]!)
    }
    f0[f] = median(window)
  }
  let runStart = -1
  for (let f = 0; f <= f0.length; f++) {
    const voiced = f < f0.length && f0[f]! > 0
    if (voiced && runStart < 0) runStart = f
    if (!voiced && runStart >= 0) {
      if (f - runStart < 3) f0.fill(0, runStart, f)
      runStart = -1
    }
  }
}

/** The voiced frames' F0 values. */
export function voicedF0(f0: Float32Array): Float32Array {
  let n = 0
  for (let i = 0; i < f0.length; i++) if (f0[i]! > 0) n++
  const out = new Float32Array(n)
  for (let i = 0, j = 0; i < f0.length; i++) if (f0[i]! > 0) out[j++] = f0[i]!
  return out
}

/** Median F0 of the voiced frames in Hz; NaN when nothing is voiced. */
export function medianF0(track: PitchTrack): number {
  return median(voicedF0(track.f0))
}

export interface F0Range {
  readonly lowHz: number
  readonly highHz: number
  /** Width between the two percentiles in semitones. */
  readonly semitones: number
}

/** Spread of F0 between two percentiles (default 10th and 90th). NaNs when nothing is voiced. */
export function f0Range(track: PitchTrack, low = 10, high = 90): F0Range {
  const voiced = voicedF0(track.f0)
  const lowHz = percentile(voiced, low)
  const highHz = percentile(voiced, high)
  return { lowHz, highHz, semitones: 12 * Math.log2(highHz / lowHz) }
}

/** Whether the frame around time `t` (seconds) is voiced. */
export function isVoicedAt(track: PitchTrack, t: number): boolean {
  const f = Math.round((t - track.frameSec / 2) / track.hopSec)
  return f >= 0 && f < track.f0.length && track.f0[f]! > 0
}
