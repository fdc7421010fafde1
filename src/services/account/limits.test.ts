import { describe, expect, it } from 'vitest'
import { effectiveLimits, MAX_LIMIT, monthOf, nextMonthOf, ownLimits, secondsToNextMonth, toStoredChanges, UNLIMITED_LIMITS } from './limits.js'

describe('quota limits', () => {
  it('an account\'s own limits override the defaults; null follows them, 0 is unlimited', () => {
    const stored = { max_concurrent: 0, requests_per_minute: null, characters_per_month: 500, audio_seconds_per_month: null }
    const defaults = { concurrency: 5, requestsPerMinute: 60, charactersPerMonth: 1000, audioSecondsPerMonth: 0 }
    expect(effectiveLimits(stored, defaults)).toEqual({ concurrency: 0, requestsPerMinute: 60, charactersPerMonth: 500, audioSecondsPerMonth: 0 })
    expect(ownLimits(stored)).toEqual(['concurrency', 'charactersPerMonth'])
    expect(effectiveLimits(undefined, UNLIMITED_LIMITS)).toEqual(UNLIMITED_LIMITS)
  })

  it('changes map to columns and refuse what the columns cannot hold', () => {
    expect(toStoredChanges({ concurrency: 3, requestsPerMinute: null })).toEqual({ max_concurrent: 3, requests_per_minute: null })
    expect(() => toStoredChanges({ charactersPerMonth: MAX_LIMIT + 1 })).toThrow(/from 0 \(unlimited\) to 2147483647/)
    expect(() => toStoredChanges({ concurrency: -1 })).toThrow(RangeError)
    expect(() => toStoredChanges({ concurrency: 1.5 })).toThrow(RangeError)
  })

  it('months are UTC calendar months', () => {
    const lastSecond = Date.UTC(2026, 11, 31, 23, 59, 59)
    expect(monthOf(lastSecond)).toBe('2026-12')
    expect(nextMonthOf(lastSecond)).toBe('2027-01-01')
    expect(secondsToNextMonth(lastSecond)).toBe(1)
    expect(secondsToNextMonth(Date.UTC(2026, 1, 1))).toBe(28 * 86_400)
  })
})
