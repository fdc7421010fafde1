/** Level helpers on mono Float32 samples. Results are new arrays; inputs are never modified. */

export function dbToGain(db: number): number {
  return 10 ** (db / 20)
}

export function gainToDb(gain: number): number {
  return gain > 0 ? 20 * Math.log10(gain) : -Infinity
}

/** Largest absolute sample value. */
export function peak(samples: Float32Array): number {
  let max = 0
  for (let i = 0; i < samples.length; i++) {
    const v = Math.abs(samples[i]!)
    if (v > max) max = v
  }
  return max
}
