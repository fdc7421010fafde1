/**
 * Silence handling for engine output: trim long leading/trailing silence without clicks, and find where
 * speech lies inside a span (to tighten word ends that an engine reports at the start of the next pause).
 */
import { concatSamples } from '../../audio/signal.js'

/** Samples quieter than this (about -54 dBFS) count as silence; engine noise floors are far below. */
export const SILENCE_LEVEL = 0.002
const FADE_SEC = 0.005

/** Index of the first sample at or above `level`, or -1. */
export function firstLoud(samples: Float32Array, level = SILENCE_LEVEL): number {
  for (let i = 0; i < samples.length; i++) if (Math.abs(samples[i]!) >= level) return i
  return -1
}

/** Index of the last sample at or above `level`, or -1. */
export function lastLoud(samples: Float32Array, level = SILENCE_LEVEL): number {
  for (let i = samples.length - 1; i >= 0; i--) if (Math.abs(samples[i]!) >= level) return i
  return -1
}

export function fadeIn(samples: Float32Array, sampleRate: number): void {
  const n = Math.min(samples.length, Math.round(FADE_SEC * sampleRate))
  for (let i = 0; i < n; i++) samples[i]! *= 0.5 - 0.5 * Math.cos((Math.PI * i) / n)
}

export function fadeOut(samples: Float32Array, sampleRate: number): void {
  const n = Math.min(samples.length, Math.round(FADE_SEC * sampleRate))
  const base = samples.length - n
  for (let i = 0; i < n; i++) samples[base + i]! *= 0.5 + 0.5 * Math.cos((Math.PI * (i + 1)) / n)
}

export interface Trimmed {
  readonly samples: Float32Array
  /** Seconds removed from the start (subtract from word times). */
  readonly offset: number
}

/**
 * Keeps at most `maxLead`/`maxTrail` seconds of silence around the speech. Cuts happen inside silence and get
 * a 5 ms fade, so they cannot click. All-silent input comes back empty. `level` is the engine's noise floor
 * with a margin (flite's statistical voices hiss at about -50 dBFS).
 */
export function trimSilence(
  samples: Float32Array,
  sampleRate: number,
  maxLead: number,
  maxTrail: number,
  level = SILENCE_LEVEL,
): Trimmed {
  const first = firstLoud(samples, level)
  if (first < 0) return { samples: new Float32Array(0), offset: samples.length / sampleRate }
  const last = lastLoud(samples, level)
  const from = Math.max(0, first - Math.round(maxLead * sampleRate))
  const to = Math.min(samples.length, last + 1 + Math.round(maxTrail * sampleRate))
  const out = samples.slice(from, to)
  if (from > 0) fadeIn(out, sampleRate)
  if (to < samples.length) fadeOut(out, sampleRate)
  return { samples: out, offset: from / sampleRate }
}

/**
 * The streaming form of `trimSilence` for engines that produce audio piecewise: drops leading silence beyond
 * `maxLead`, and holds back silence until either speech follows (then it is passed on unchanged) or the stream
 * ends (then at most `maxTrail` of it is kept). Speech itself is never delayed.
 */
export class StreamTrimmer {
  readonly #rate: number
  readonly #maxLead: number
  readonly #maxTrail: number
  #started = false
  #dropped = 0
  #lead = new Float32Array(0)
  #held: Float32Array[] = []

  constructor(sampleRate: number, maxLead: number, maxTrail: number) {
    this.#rate = sampleRate
    this.#maxLead = Math.round(maxLead * sampleRate)
    this.#maxTrail = Math.round(maxTrail * sampleRate)
  }

  /** Seconds of leading audio dropped so far (subtract from engine times). */
  get offset(): number {
    return this.#dropped / this.#rate
  }

  push(input: Float32Array): Float32Array {
    let samples = input
    if (!this.#started) {
      const first = firstLoud(samples)
      const joined = concatSamples([this.#lead, first < 0 ? samples : samples.subarray(0, first)])
      const keep = joined.subarray(Math.max(0, joined.length - this.#maxLead))
      this.#dropped += joined.length - keep.length
      if (first < 0) {
        this.#lead = keep.slice()
        return new Float32Array(0)
      }
      this.#started = true
      samples = concatSamples([keep, samples.subarray(first)])
      if (this.#dropped > 0) fadeIn(samples, this.#rate)
    }
    const last = lastLoud(samples)
    if (last < 0) {
      this.#held.push(samples.slice())
      return new Float32Array(0)
    }
    const out = concatSamples([...this.#held, samples.subarray(0, last + 1)])
    this.#held = [samples.slice(last + 1)]
    return out
  }

  /** The kept part of the trailing silence, faded out. */
  end(): Float32Array {
    if (!this.#started) return new Float32Array(0)
    const held = concatSamples(this.#held)
    this.#held = []
    if (held.length <= this.#maxTrail) return held
    const out = held.slice(0, this.#maxTrail)
    fadeOut(out, this.#rate)
    return out
  }
}
