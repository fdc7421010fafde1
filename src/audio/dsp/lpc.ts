/**
 * Formant estimates from linear prediction: autocorrelation LPC per frame, peaks of the LPC envelope, and
 * the median of the first three peaks over frames. Peak picking (rather than polynomial roots) is robust
 * and cheap but merges close formants (F1/F2 of back vowels), so treat the figures as descriptive.
 */
import { fft } from './fft.js'
import { median } from './stats.js'

const ENV_SIZE = 512

/** LPC coefficients a[1..order] (a[0] = 1 implied) by Levinson-Durbin; undefined for a silent frame. */
export function lpc(frame: Float64Array, order: number): Float64Array | undefined {
  const r = new Float64Array(order + 1)
  for (let lag = 0; lag <= order; lag++) {
    let sum = 0
    for (let i = lag; i < frame.length; i++) sum += frame[i]! * frame[i - lag]!
    r[lag] = sum
  }
  if (r[0]! <= 1e-10) return undefined
  r[0] = r[0]! * (1 + 1e-9)
  const a = new Float64Array(order + 1)
  const prev = new Float64Array(order + 1)
  a[0] = 1
  let err = r[0]!
  for (let i = 1; i <= order; i++) {
    let acc = r[i]!
    for (let j = 1; j < i; j++) acc += a[j]! * r[i - j]!
    const k = -acc / err
    prev.set(a)
    for (let j = 1; j < i; j++) a[j] = prev[j]! + k * prev[i - j]!
    a[i] = k
    err *= 1 - k * k
    if (err <= 0) return undefined
  }
  return a.subarray(1)
}

/** Frequencies (Hz) of the LPC envelope's peaks between 150 Hz and `maxHz`, ascending. */
export function lpcPeaks(a: Float64Array, rate: number, maxHz: number): number[] {
  const re = new Float64Array(ENV_SIZE)
  const im = new Float64Array(ENV_SIZE)
  re[0] = 1
  re.set(a, 1)
  fft(re, im)
  const mag = new Float64Array(ENV_SIZE / 2)
  for (let k = 0; k < ENV_SIZE / 2; k++) mag[k] = -Math.log(re[k]! * re[k]! + im[k]! * im[k]! + 1e-20)
  const peaks: number[] = []
  const hzPerBin = rate / ENV_SIZE
  for (let k = 1; k < ENV_SIZE / 2 - 1; k++) {
    const hz = k * hzPerBin
    if (hz < 150 || hz > maxHz) continue
    if (mag[k]! > mag[k - 1]! && mag[k]! >= mag[k + 1]!) {
      const denom = mag[k - 1]! - 2 * mag[k]! + mag[k + 1]!
      const offset = denom !== 0 ? (0.5 * (mag[k - 1]! - mag[k + 1]!)) / denom : 0
      peaks.push((k + offset) * hzPerBin)
    }
  }
  return peaks
}

/**
 * Median F1..F3 over the given frame starts (samples), or null when fewer than 10 frames had three
 * peaks. Frames are 25 ms, pre-emphasised and Hamming-windowed.
 */
export function medianFormants(
  samples: Float32Array,
  rate: number,
  frameStarts: readonly number[],
): [number, number, number] | null {
  const size = Math.round(0.025 * rate)
  const order = Math.min(18, Math.round(rate / 1000) + 2)
  const frame = new Float64Array(size)
  const tracks: [number[], number[], number[]] = [[], [], []]
  for (const start of frameStarts) {
    if (start < 1 || start + size > samples.length) continue
    for (let i = 0; i < size; i++) {
      const w = 0.54 - 0.46 * Math.cos((2 * Math.PI * i) / (size - 1))
      frame[i] = (samples[start + i]! - 0.97 * samples[start + i - 1]!) * w
    }
    const a = lpc(frame, order)
    if (!a) continue
    const peaks = lpcPeaks(a, rate, Math.min(5000, rate / 2 - 200))
    if (peaks.length < 3) continue
    for (let f = 0; f < 3; f++) tracks[f]!.push(peaks[f]!)
  }
  if (tracks[0].length < 10) return null
  return [median(tracks[0]), median(tracks[1]), median(tracks[2])]
}
