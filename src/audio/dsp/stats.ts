/** Order statistics for analysis code. */

/** Linear-interpolated percentile (0..100) of `values`; NaN for none. */
export function percentile(values: ArrayLike<number>, p: number): number {
  if (values.length === 0) return NaN
  const sorted = Float64Array.from(values).sort()
  const at = Math.min(sorted.length - 1, Math.max(0, (p / 100) * (sorted.length - 1)))
  const lo = Math.floor(at)
  const hi = Math.ceil(at)
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (at - lo)
}

export function median(values: ArrayLike<number>): number {
  return percentile(values, 50)
}

export function dbToGain(db: number): number {
  return 10 ** (db / 20)
}

export function gainToDb(gain: number, floorDb = -100): number {
  return gain > 0 ? Math.max(floorDb, 20 * Math.log10(gain)) : floorDb
}
