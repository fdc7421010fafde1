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

/** RMS level in dBFS (a full-scale square wave is 0 dBFS, a full-scale sine -3.01); -Infinity for silence. */
export function rmsDb(samples: Float32Array): number {
  let sum = 0
  for (let i = 0; i < samples.length; i++) sum += samples[i]! * samples[i]!
  return samples.length === 0 || sum === 0 ? -Infinity : 10 * Math.log10(sum / samples.length)
}

/** Multiplies by `db` decibels, clamping to [-1, 1] so a boost can never wrap when converted to integers. */
export function applyGainDb(samples: Float32Array, db: number): Float32Array {
  return applyGain(samples, dbToGain(db))
}

export function applyGain(samples: Float32Array, gain: number): Float32Array {
  const out = new Float32Array(samples.length)
  for (let i = 0; i < samples.length; i++) out[i] = Math.max(-1, Math.min(1, samples[i]! * gain))
  return out
}

/**
 * Applies a gain that moves linearly from `fromGain` to `toGain` over the first `rampSamples`, then holds;
 * changing level this way between chunks avoids the step (a click) a sudden gain change would make.
 */
export function applyGainRamp(
  samples: Float32Array,
  fromGain: number,
  toGain: number,
  rampSamples: number,
): Float32Array {
  const out = new Float32Array(samples.length)
  const ramp = Math.min(rampSamples, samples.length)
  for (let i = 0; i < samples.length; i++) {
    const g = i < ramp ? fromGain + ((toGain - fromGain) * (i + 1)) / ramp : toGain
    out[i] = Math.max(-1, Math.min(1, samples[i]! * g))
  }
  return out
}
