/**
 * HTS `-r` against the speed it actually gives (total duration at 1 ÷ duration at r, mean of two texts of
 * two and three sentences; kept silences scale exactly). Above 1 the voice speeds up less than asked,
 * about 10 % short at 2, because HTS states cannot get shorter than one frame; below 1 it is within 1 %.
 * Pairs: [achieved speed, HTS rate], increasing.
 */
const MEASURED: readonly (readonly [speed: number, hts: number])[] = [
  [0.3045, 0.3], [0.5055, 0.5], [0.8, 0.8], [1, 1], [1.225, 1.25], [1.45, 1.5], [1.718, 1.8], [1.905, 2],
  [2, 2.1], [2.196, 2.3], [2.392, 2.5], [2.684, 2.8], [2.884, 3], [3.177, 3.3],
]

/** Fastest and slowest speeds `htsRate` can deliver; the caller time-stretches beyond them. */
export const FESTIVAL_RATE_RANGE = [0.25, 3.2] as const

/** The HTS rate that makes speech `speed` times faster (durations divided by `speed`). */
export function htsRate(speed: number): number {
  if (!Number.isFinite(speed) || speed <= 0) return 1
  const first = MEASURED[0]!
  if (speed <= first[0]) return (speed * first[1]) / first[0]
  for (let i = 1; i < MEASURED.length; i++) {
    const [s1, r1] = MEASURED[i]!
    const [s0, r0] = MEASURED[i - 1]!
    if (speed <= s1) return r0 + ((speed - s0) / (s1 - s0)) * (r1 - r0)
  }
  const last = MEASURED[MEASURED.length - 1]!
  return (speed * last[1]) / last[0]
}
