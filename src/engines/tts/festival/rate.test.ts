import { describe, expect, it } from 'vitest'
import { FESTIVAL_RATE_RANGE, htsRate } from './rate.js'

describe('htsRate', () => {
  it('is 1 at normal speed and asks HTS for more than the wanted speed-up above it', () => {
    expect(htsRate(1)).toBe(1)
    expect(htsRate(2)).toBeCloseTo(2.1, 5)
    expect(htsRate(1.5)).toBeGreaterThan(1.5)
    expect(htsRate(0.5)).toBeCloseTo(0.495, 2)
  })

  it('increases with the speed over the whole range, and falls back to 1 for nonsense', () => {
    let last = 0
    for (let speed = FESTIVAL_RATE_RANGE[0]; speed <= FESTIVAL_RATE_RANGE[1]; speed += 0.05) {
      const r = htsRate(speed)
      expect(r).toBeGreaterThan(last)
      last = r
    }
    expect(htsRate(Number.NaN)).toBe(1)
    expect(htsRate(0)).toBe(1)
  })
})
