/**
 * Timbre descriptor: the long-term average spectral envelope. Each selected frame's log spectrum is
 * cepstrally smoothed (lifter at 1.6 ms, below the pitch period of voices up to ~600 Hz) so harmonics,
 * and with them F0, drop out; the envelopes are averaged in dB and sampled on a log-frequency grid
 * (24 points per octave from 100 Hz to 8 kHz, or less when the sample rate is lower), mean removed.
 * Comparison and formant-scale search live in timbre-compare.ts.
 */
import { fft, hann, nextPow2 } from './fft.js'
import { medianFormants } from './lpc.js'
import { percentile } from './stats.js'

export interface TimbreDescriptor {
  /** Frequency of `envelopeDb[0]`, Hz. */
  readonly minHz: number
  /** Grid density: point `k` sits at `minHz * 2 ** (k / pointsPerOctave)`. */
  readonly pointsPerOctave: number
  /** Average smoothed log spectrum in dB on the grid, its mean subtracted (only its shape matters). */
  readonly envelopeDb: readonly number[]
  /** Power-weighted mean frequency of the long-term average spectrum between `minHz` and the grid's top, Hz. */
  readonly centroidHz: number
  /** Slope of a straight-line fit to `envelopeDb` over log frequency, dB per octave (negative: darker). */
  readonly tiltDbPerOctave: number
  /** Median F1, F2, F3 in Hz from LPC envelope peaks, or null when too few frames gave three peaks. */
  readonly formantsHz: readonly [number, number, number] | null
  /** Frames averaged. */
  readonly frames: number
}

export interface SpectrumOptions {
  /** Frame selector by frame-centre time in seconds (for example "voiced"); default: every loud frame. */
  readonly include?: (timeSec: number) => boolean
}

export const GRID_MIN_HZ = 100
export const GRID_MAX_HZ = 8000
export const POINTS_PER_OCTAVE = 24
const LIFTER_SEC = 0.0016

export function timbreDescriptor(
  samples: Float32Array,
  rate: number,
  options: SpectrumOptions = {},
): TimbreDescriptor {
  const size = nextPow2(Math.round(0.032 * rate))
  const hop = Math.round(0.01 * rate)
  const window = hann(size)
  const half = size / 2
  const lifter = Math.max(4, Math.round(LIFTER_SEC * rate))
  const count = samples.length < size ? 0 : 1 + Math.floor((samples.length - size) / hop)
  const energy = new Float64Array(count)
  for (let f = 0; f < count; f++) {
    let sum = 0
    for (let i = f * hop; i < f * hop + size; i++) sum += samples[i]! * samples[i]!
    energy[f] = 10 * Math.log10(sum / size + 1e-12)
  }
  // Quiet frames (pauses, breath) would pull the average towards the noise spectrum.
  const gate = Math.max(-70, percentile(energy, 95) - 40)
  const envSum = new Float64Array(half + 1)
  const powSum = new Float64Array(half + 1)
  const re = new Float64Array(size)
  const im = new Float64Array(size)
  const used: number[] = []
  for (let f = 0; f < count; f++) {
    const start = f * hop
    if (energy[f]! < gate || (options.include && !options.include((start + size / 2) / rate))) continue
    used.push(start)
    // Without removing the frame's mean, a DC offset (-50 dBFS is common in recordings) leaks into the
    // lowest bins and, through the cepstral smoothing, bends the envelope below ~500 Hz by several dB.
    let mean = 0
    for (let i = 0; i < size; i++) mean += samples[start + i]!
    mean /= size
    for (let i = 0; i < size; i++) re[i] = (samples[start + i]! - mean) * window[i]!
    im.fill(0)
    fft(re, im)
    for (let k = 0; k <= half; k++) {
      const p = re[k]! * re[k]! + im[k]! * im[k]!
      powSum[k] = powSum[k]! + p
      re[k] = 10 * Math.log10(p + 1e-12)
    }
    for (let k = 1; k < half; k++) re[size - k] = re[k]!
    im.fill(0)
    fft(re, im)
    for (let n = lifter + 1; n < size - lifter; n++) re[n] = 0
    im.fill(0)
    fft(re, im)
    for (let k = 0; k <= half; k++) envSum[k] = envSum[k]! + re[k]! / size
  }
  const frames = used.length
  const top = Math.min(GRID_MAX_HZ, 0.47 * rate)
  const points = Math.floor(POINTS_PER_OCTAVE * Math.log2(top / GRID_MIN_HZ)) + 1
  const envelope = new Array<number>(points).fill(0)
  if (frames > 0) {
    for (let k = 0; k < points; k++) {
      const bin = (GRID_MIN_HZ * 2 ** (k / POINTS_PER_OCTAVE) * size) / rate
      const lo = Math.floor(bin)
      envelope[k] = (envSum[lo]! + (envSum[lo + 1]! - envSum[lo]!) * (bin - lo)) / frames
    }
  }
  const mean = envelope.reduce((a, b) => a + b, 0) / points
  const envelopeDb = envelope.map((v) => round2(v - mean))
  return {
    minHz: GRID_MIN_HZ,
    pointsPerOctave: POINTS_PER_OCTAVE,
    envelopeDb,
    centroidHz: Math.round(centroid(powSum, rate, size, top)),
    tiltDbPerOctave: round2(slope(envelopeDb) * POINTS_PER_OCTAVE),
    formantsHz: frames > 0 ? medianFormants(samples, rate, lpcStarts(used, size, rate)) : null,
    frames,
  }
}

// Every other analysed frame, centred like the FFT frame, keeps LPC to a fraction of the analysis time.
function lpcStarts(used: readonly number[], size: number, rate: number): number[] {
  const offset = Math.round((size - 0.025 * rate) / 2)
  return used.filter((_, i) => i % 2 === 0).map((start) => start + offset)
}

function centroid(power: Float64Array, rate: number, size: number, top: number): number {
  let num = 0
  let den = 0
  for (let k = 0; k < power.length; k++) {
    const hz = (k * rate) / size
    if (hz < GRID_MIN_HZ || hz > top) continue
    num += hz * power[k]!
    den += power[k]!
  }
  return den > 0 ? num / den : 0
}

/** Least-squares slope of `values` against their index. */
export function slope(values: readonly number[]): number {
  const n = values.length
  if (n < 2) return 0
  const mx = (n - 1) / 2
  const my = values.reduce((a, b) => a + b, 0) / n
  let num = 0
  let den = 0
  for (let i = 0; i < n; i++) {
    num += (i - mx) * (values[i]! - my)
    den += (i - mx) * (i - mx)
  }
  return num / den
}

function round2(v: number): number {
  return Math.round(v * 100) / 100
}
