/** Synthetic test signals for the DSP tests. */
import type { TimbreDescriptor } from '../../src/audio/dsp/spectrum.js'

/** A glottal-ish harmonic tone: harmonics with 1/k amplitude, F0 following `f0(t)`. */
export function harmonicTone(
  rate: number,
  seconds: number,
  f0: (t: number) => number,
  amplitude = 0.3,
): Float32Array {
  const out = new Float32Array(Math.round(rate * seconds))
  let phase = 0
  for (let i = 0; i < out.length; i++) {
    const hz = f0(i / rate)
    phase += (2 * Math.PI * hz) / rate
    let v = 0
    for (let k = 1; k * hz < rate / 2 && k <= 20; k++) v += Math.sin(k * phase) / k
    out[i] = amplitude * 0.5 * v
  }
  return out
}

/** Deterministic white noise (xorshift), uniform in [-amplitude, amplitude]. */
export function noise(length: number, amplitude: number, seed = 12345): Float32Array {
  const out = new Float32Array(length)
  let s = seed >>> 0 || 1
  for (let i = 0; i < length; i++) {
    s ^= s << 13
    s ^= s >>> 17
    s ^= s << 5
    out[i] = amplitude * (((s >>> 0) / 4294967296) * 2 - 1)
  }
  return out
}

export function silence(rate: number, seconds: number): Float32Array {
  return new Float32Array(Math.round(rate * seconds))
}

export function mix(a: Float32Array, b: Float32Array): Float32Array {
  const out = new Float32Array(Math.max(a.length, b.length))
  for (let i = 0; i < out.length; i++) out[i] = (a[i] ?? 0) + (b[i] ?? 0)
  return out
}

/** A smooth envelope with formant bumps at 600, 1700 and 2900 Hz times `formantScale`, on the descriptor grid. */
export function fakeTimbre(formantScale = 1, tilt = -6): TimbreDescriptor {
  const env: number[] = []
  for (let k = 0; k < 153; k++) {
    const hz = 100 * 2 ** (k / 24)
    let db = tilt * Math.log2(hz / 100)
    for (const [f, bw] of [[600, 0.35], [1700, 0.3], [2900, 0.25]] as const) {
      db += 12 * Math.exp(-((Math.log2(hz / (f * formantScale)) / bw) ** 2))
    }
    env.push(db)
  }
  const mean = env.reduce((a, b) => a + b, 0) / env.length
  return {
    minHz: 100,
    pointsPerOctave: 24,
    envelopeDb: env.map((v) => v - mean),
    centroidHz: 500,
    tiltDbPerOctave: tilt,
    formantsHz: [600 * formantScale, 1700 * formantScale, 2900 * formantScale],
    frames: 500,
  }
}
