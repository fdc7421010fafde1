/**
 * Private stand-in for `src/audio/resample.ts` (a colleague's resampler, not present when ASR was written):
 * same `resampleAll` signature so the switch is one import line. Windowed-sinc (Blackman) interpolation
 * with the cutoff below the lower Nyquist frequency; kernel values come from a fine table, so any ratio works.
 */
// ASR only needs the band up to about 7 kHz, so a short kernel (cheap on hour-long inputs) is enough.
const ZERO_CROSSINGS = 8
const TABLE_STEPS = 512
const CUTOFF = 0.92

let table: Float32Array | undefined

/** sinc · Blackman on [0, ZERO_CROSSINGS], sampled TABLE_STEPS times per zero crossing. */
function kernelTable(): Float32Array {
  if (table) return table
  const n = ZERO_CROSSINGS * TABLE_STEPS + 2
  table = new Float32Array(n)
  for (let i = 0; i < n; i++) {
    const x = i / TABLE_STEPS
    const sinc = x === 0 ? 1 : Math.sin(Math.PI * x) / (Math.PI * x)
    const w = x >= ZERO_CROSSINGS ? 0 : 0.42 + 0.5 * Math.cos((Math.PI * x) / ZERO_CROSSINGS) +
      0.08 * Math.cos((2 * Math.PI * x) / ZERO_CROSSINGS)
    table[i] = sinc * w
  }
  return table
}

export function resampledLength(inputLength: number, from: number, to: number): number {
  return Math.floor((inputLength * to) / from)
}

/**
 * Fills `out[first..end)` with the resampled signal. Every output sample reads the whole input as needed,
 * so filling a buffer piece by piece gives exactly the one-call result (callers use that to yield).
 */
export function resampleRange(
  samples: Float32Array, from: number, to: number, out: Float32Array, first: number, end: number,
): void {
  const k = kernelTable()
  const ratio = to / from
  // Downsampling widens the kernel (in input samples) so it low-passes below the new Nyquist frequency.
  const scale = Math.min(1, ratio) * CUTOFF
  const reach = ZERO_CROSSINGS / scale
  const last = samples.length - 1
  for (let i = first; i < end; i++) {
    const t = i / ratio
    const lo = Math.max(0, Math.ceil(t - reach))
    const hi = Math.min(last, Math.floor(t + reach))
    let acc = 0
    for (let j = lo; j <= hi; j++) {
      const pos = Math.abs(j - t) * scale * TABLE_STEPS
      const idx = pos | 0
      const frac = pos - idx
      acc += samples[j]! * (k[idx]! + (k[idx + 1]! - k[idx]!) * frac)
    }
    out[i] = acc * scale
  }
}

/** Converts a whole buffer from `from` Hz to `to` Hz. Returns the input itself when the rates match. */
export function resampleAll(samples: Float32Array, from: number, to: number): Float32Array {
  if (from === to) return samples
  const out = new Float32Array(resampledLength(samples.length, from, to))
  resampleRange(samples, from, to, out, 0, out.length)
  return out
}
