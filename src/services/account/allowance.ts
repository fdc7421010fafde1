import type { Db } from '../../store/db/database.js'

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
  readonly credit: Allowance | null
}

/**
 * Where `/wallet/self/*` reads an account's allowance. One implementation today (no limits); the quota
 * service of the scale-out work plugs in here with the counted limits and usage.
 */
export interface AllowanceSource {
  get(accountId: string): Promise<AccountAllowance>
}

/** Parla without quotas: every account is unlimited. Reads the account's creation time for the timestamps. */
export function createUnlimitedAllowance(db: Db): AllowanceSource {
  return {
    async get(accountId) {
      const row = await db.selectFrom('accounts').select('created_at').where('id', '=', accountId).executeTakeFirst()
      const createdAt = row?.created_at ?? new Date(0).toISOString()
      return { accountId, createdAt, updatedAt: createdAt, credit: null }
    },
  }
}
