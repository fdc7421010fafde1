import type { Db } from '../../store/db/database.js'
import type { UsageTotals } from '../../store/db/repositories/quota.js'
import type { QuotaLimits } from './limits.js'
import type { QuotaService } from './quota.js'

/** A limited allowance: how much there was and how much is left, in the unit the limit counts. */
export interface Allowance {
  readonly total: number
  readonly remaining: number
}

/** What an account may still use. `null` means no limit is configured: the account is unlimited. */
export interface AccountAllowance {
  readonly accountId: string
  /** When the account was created (ISO 8601). */
  readonly createdAt: string
  /** When the allowance last changed (ISO 8601); the creation time while nothing is counted. */
  readonly updatedAt: string
  /** TTS characters this month, the unit the Fish cloud's credit counts in; null when unlimited. */
  readonly credit: Allowance | null
  /** Every limit in force (0: unlimited) and this month's usage. */
  readonly limits: QuotaLimits
  readonly usage: UsageTotals & { readonly month: string }
}

/** Where `/wallet/self/*` reads an account's allowance. */
export interface AllowanceSource {
  get(accountId: string): Promise<AccountAllowance>
}

/** The account's limits and this month's usage from the quota service; the creation time from `accounts`. */
export function createQuotaAllowance(db: Db, quota: QuotaService): AllowanceSource {
  return {
    async get(accountId) {
      const row = await db.selectFrom('accounts').select('created_at').where('id', '=', accountId).executeTakeFirst()
      const createdAt = row?.created_at ?? new Date(0).toISOString()
      const [{ limits }, usage] = await Promise.all([quota.limits(accountId), quota.usage(accountId)])
      const max = limits.charactersPerMonth
      return {
        accountId,
        createdAt,
        updatedAt: usage.updatedAt ?? createdAt,
        credit: max > 0 ? { total: max, remaining: Math.max(0, max - usage.characters) } : null,
        limits,
        usage,
      }
    },
  }
}
