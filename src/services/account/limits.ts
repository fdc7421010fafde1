import type { StoredLimits } from '../../store/db/repositories/quota.js'

/** An account's limits in force; 0 means unlimited. Shared by every key of the account. */
export interface QuotaLimits {
  /** Requests under way plus open live sockets. */
  readonly concurrency: number
  readonly requestsPerMinute: number
  /** TTS text characters per calendar month (UTC). */
  readonly charactersPerMonth: number
  /** ASR input audio seconds per calendar month (UTC). */
  readonly audioSecondsPerMonth: number
}

export type LimitName = keyof QuotaLimits

/** Each limit's column in `account_limits`. */
export const LIMIT_COLUMNS = {
  concurrency: 'max_concurrent',
  requestsPerMinute: 'requests_per_minute',
  charactersPerMonth: 'characters_per_month',
  audioSecondsPerMonth: 'audio_seconds_per_month',
} as const satisfies Record<LimitName, keyof StoredLimits>

export const LIMIT_NAMES = Object.keys(LIMIT_COLUMNS) as LimitName[]

export const UNLIMITED_LIMITS: QuotaLimits = { concurrency: 0, requestsPerMinute: 0, charactersPerMonth: 0, audioSecondsPerMonth: 0 }

/** The largest limit: the columns are 32-bit integers on every database. */
export const MAX_LIMIT = 2_147_483_647

/** A change to an account's limits: a number (0: unlimited) or null to go back to the configured default. */
export type LimitChanges = Partial<Record<LimitName, number | null>>

/** The account's own limits over the configured defaults. */
export function effectiveLimits(stored: StoredLimits | undefined, defaults: QuotaLimits): QuotaLimits {
  const pick = (name: LimitName) => stored?.[LIMIT_COLUMNS[name]] ?? defaults[name]
  return {
    concurrency: pick('concurrency'),
    requestsPerMinute: pick('requestsPerMinute'),
    charactersPerMonth: pick('charactersPerMonth'),
    audioSecondsPerMonth: pick('audioSecondsPerMonth'),
  }
}

/** Which limits the account sets itself (the rest follow the configured defaults). */
export function ownLimits(stored: StoredLimits | undefined): LimitName[] {
  return LIMIT_NAMES.filter((name) => stored?.[LIMIT_COLUMNS[name]] != null)
}

export function toStoredChanges(changes: LimitChanges): Partial<StoredLimits> {
  const out: Partial<Record<keyof StoredLimits, number | null>> = {}
  for (const name of LIMIT_NAMES) {
    const value = changes[name]
    if (value === undefined) continue
    if (value !== null && (!Number.isSafeInteger(value) || value < 0 || value > MAX_LIMIT)) {
      throw new RangeError(`${name} must be a whole number from 0 (unlimited) to ${MAX_LIMIT}, got ${value}`)
    }
    out[LIMIT_COLUMNS[name]] = value
  }
  return out
}

/** UTC calendar month of `ms`, `YYYY-MM`: the period monthly limits and usage count in. */
export const monthOf = (ms: number) => new Date(ms).toISOString().slice(0, 7)

/** The first day of the month after the one `ms` is in, `YYYY-MM-01`. */
export function nextMonthOf(ms: number): string {
  const d = new Date(ms)
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)).toISOString().slice(0, 10)
}

/** Seconds from `ms` to the start of the next UTC month, when monthly limits start over. */
export function secondsToNextMonth(ms: number): number {
  const d = new Date(ms)
  return Math.max(1, Math.ceil((Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) - ms) / 1000))
}
