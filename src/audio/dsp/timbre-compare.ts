/**
 * Comparing timbre descriptors (spectrum.ts). Distance: the RMS difference in dB between two average
 * envelopes over their common band (re-centred there), after removing the best straight line over log
 * frequency from the difference, so overall level and a global tilt (microphone, channel) do not count.
 * Formant scale: the factor `s` for which the base envelope read at `f / s` best matches the reference,
 * i.e. how far the base's formants must move (up for s > 1) to sit where the reference's are.
 */
import { SpeechError } from '../../errors.js'
import type { TimbreDescriptor } from './spectrum.js'

/** Band over which formant positions are compared (reference frequencies), Hz. */
const FIT_LOW_HZ = 250
const FIT_HIGH_HZ = 5000

/** Envelope value at fractional grid position `k` (linear interpolation, clamped at the ends). */
function at(env: readonly number[], k: number): number {
  if (k <= 0) return env[0]!
  if (k >= env.length - 1) return env[env.length - 1]!
  const lo = Math.floor(k)
  return env[lo]! + (env[lo + 1]! - env[lo]!) * (k - lo)
}

/** RMS of `diff` after removing its least-squares line (against index). */
function detrendedRms(diff: readonly number[]): number {
  const n = diff.length
  if (n < 3) return 0
  const mx = (n - 1) / 2
  const my = diff.reduce((a, b) => a + b, 0) / n
  let num = 0
  let den = 0
  for (let i = 0; i < n; i++) {
    num += (i - mx) * (diff[i]! - my)
    den += (i - mx) * (i - mx)
  }
  const b = num / den
  let sum = 0
  for (let i = 0; i < n; i++) {
    const r = diff[i]! - my - b * (i - mx)
    sum += r * r
  }
  return Math.sqrt(sum / n)
}

function assertSameGrid(a: TimbreDescriptor, b: TimbreDescriptor): void {
  if (a.minHz !== b.minHz || a.pointsPerOctave !== b.pointsPerOctave) {
    throw new SpeechError('internal_error', '[timbre] descriptors use different frequency grids; re-analyse the voices')
  }
}

/** Timbre distance in dB (0 = same envelope shape; different speakers are typically 2..6 dB apart). */
export function timbreDistance(a: TimbreDescriptor, b: TimbreDescriptor): number {
  assertSameGrid(a, b)
  return costAt(a, b, 1, 0, Infinity)
}

/** Envelope mismatch in dB between `reference` and `base` warped by `scale`, over the fit band. */
function costAt(
  reference: TimbreDescriptor,
  base: TimbreDescriptor,
  scale: number,
  lowHz = FIT_LOW_HZ,
  highHz = FIT_HIGH_HZ,
): number {
  const ppo = reference.pointsPerOctave
  const shift = ppo * Math.log2(scale)
  const n = Math.min(reference.envelopeDb.length, base.envelopeDb.length)
  const diff: number[] = []
  for (let k = 0; k < n; k++) {
    const hz = reference.minHz * 2 ** (k / ppo)
    if (hz < lowHz || hz > highHz) continue
    const source = k - shift
    if (source < 0 || source > base.envelopeDb.length - 1) continue
    diff.push(reference.envelopeDb[k]! - at(base.envelopeDb, source))
  }
  return detrendedRms(diff)
}

export interface FormantScaleEstimate {
  /** Factor for the base voice's formants, within the searched range. */
  readonly scale: number
  /** Envelope mismatch at `scale`, dB. */
  readonly costDb: number
  /** Envelope mismatch without scaling, dB; `costAtOneDb - costDb` says how much the scale helps. */
  readonly costAtOneDb: number
}

/**
 * Grid search over log-spaced scales (0.25 % steps) with a parabolic refinement of the best step. `lowHz`
 * raises the bottom of the fit band (default 250 Hz): below about twice the F0 the smoothed envelope follows
 * the harmonics rather than the formants, so callers pass 2 × the higher F0 of the two voices.
 */
export function estimateFormantScale(
  reference: TimbreDescriptor,
  base: TimbreDescriptor,
  range: { readonly min?: number; readonly max?: number; readonly lowHz?: number } = {},
): FormantScaleEstimate {
  assertSameGrid(reference, base)
  const min = range.min ?? 0.8
  const max = range.max ?? 1.25
  const step = Math.log2(1.0025)
  const steps = Math.ceil((Math.log2(max) - Math.log2(min)) / step)
  const costs: number[] = []
  const low = Math.max(FIT_LOW_HZ, range.lowHz ?? 0)
  for (let i = 0; i <= steps; i++) costs.push(costAt(reference, base, 2 ** (Math.log2(min) + i * step), low))
  let best = 0
  for (let i = 1; i < costs.length; i++) if (costs[i]! < costs[best]!) best = i
  let offset = 0
  if (best > 0 && best < costs.length - 1) {
    const [a, b, c] = [costs[best - 1]!, costs[best]!, costs[best + 1]!]
    const denom = a - 2 * b + c
    if (denom > 0) offset = Math.max(-0.5, Math.min(0.5, (0.5 * (a - c)) / denom))
  }
  const scale = Math.min(max, Math.max(min, 2 ** (Math.log2(min) + (best + offset) * step)))
  return { scale, costDb: costAt(reference, base, scale, low), costAtOneDb: costAt(reference, base, 1, low) }
}
