/** Statistics for the benchmarks' figures. */

/** The nearest-rank percentile (`p` in 0–100): the smallest value with at least p % of the values at or below it. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!
}

/** The upper median: the middle value, or the higher of the two middle ones. */
export const median = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

/** The arithmetic mean. */
export const mean = (values: readonly number[]): number => values.reduce((sum, v) => sum + v, 0) / values.length
