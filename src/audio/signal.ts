/** Small pure helpers on Float32 mono samples. */

export function concatSamples(parts: readonly Float32Array[]): Float32Array {
  return concatInto(new Float32Array(totalLength(parts)), parts)
}

/** Bytes one after another, without a copy when there is only one part. */
export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0]!
  return concatInto(new Uint8Array(totalLength(parts)), parts)
}

function totalLength(parts: readonly ArrayLike<number>[]): number {
  let length = 0
  for (const p of parts) length += p.length
  return length
}

function concatInto<T extends Uint8Array | Float32Array>(out: T, parts: readonly T[]): T {
  let offset = 0
  for (const p of parts) {
    out.set(p, offset)
    offset += p.length
  }
  return out
}

export function int16ToFloat32(input: Int16Array): Float32Array {
  const out = new Float32Array(input.length)
  for (let i = 0; i < input.length; i++) out[i] = input[i]! / 32768
  return out
}

/**
 * Clamps to [-1, 1] and rounds to signed 16-bit (halves up, as `Math.round`), into `out` from `at` (a new
 * array by default).
 */
export function float32ToInt16(input: Float32Array, out: Int16Array = new Int16Array(input.length), at = 0): Int16Array {
  const n = input.length
  const target = at === 0 ? out : out.subarray(at, at + n)
  for (let i = 0; i < n; i++) {
    const x = input[i]!
    // Scaled and clamped with one branch per sign; NaN fails every test and becomes silence.
    const v = x >= 0 ? (x < 1 ? x * 32767 : 32767) : x > -1 ? x * 32768 : x === x ? -32768 : 0
    // Shifted to be positive, truncation is floor: floor(v + 0.5) = Math.round(v), without the call.
    target[i] = ((v + 32768.5) | 0) - 32768
  }
  return out
}

/** Root-mean-square level of the samples, 0 for none. */
export function rms(samples: Float32Array): number {
  if (samples.length === 0) return 0
  let sum = 0
  for (let i = 0; i < samples.length; i++) sum += samples[i]! * samples[i]!
  return Math.sqrt(sum / samples.length)
}
