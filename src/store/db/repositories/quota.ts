import type { ChangeFeed } from '../changes.js'
import type { Db } from '../database.js'
import type { AccountLimitsTable } from '../schema.js'
import { createRowCache } from './row-cache.js'

/** Limit columns as stored: null is the configured default, 0 unlimited. */
export type StoredLimits = Omit<AccountLimitsTable, 'account_id' | 'updated_at'>

/** Counts added to one key's month. */
export interface UsageDelta {
  readonly requests?: number
  readonly characters?: number
  readonly audioSeconds?: number
  readonly speechSeconds?: number
}

export interface UsageTotals {
  readonly requests: number
  readonly characters: number
  readonly audioSeconds: number
  readonly speechSeconds: number
  /** Last change (ISO 8601); null when nothing was counted. */
  readonly updatedAt: string | null
}

export interface KeyUsageRow extends UsageTotals {
  readonly keyId: string
  readonly accountId: string
  readonly month: string
}

/** The quota tables' statements, on the database or inside a turn's transaction. */
function quotaQueries(db: Db) {
  return {
    async limits(accountId: string): Promise<StoredLimits | undefined> {
      return db
        .selectFrom('account_limits')
        .select(['max_concurrent', 'requests_per_minute', 'characters_per_month', 'audio_seconds_per_month'])
        .where('account_id', '=', accountId)
        .executeTakeFirst()
    },

    async setLimits(accountId: string, changes: Partial<StoredLimits>): Promise<void> {
      const updated_at = new Date().toISOString()
      await db
        .insertInto('account_limits')
        .values({ max_concurrent: null, requests_per_minute: null, characters_per_month: null, audio_seconds_per_month: null, ...changes, account_id: accountId, updated_at })
        .onConflict((oc) => oc.column('account_id').doUpdateSet({ ...changes, updated_at }))
        .execute()
    },

    async minuteCount(accountId: string, minute: number): Promise<number> {
      const row = await db.selectFrom('quota_minutes').select('used').where('account_id', '=', accountId).where('minute', '=', minute).executeTakeFirst()
      return Number(row?.used ?? 0)
    },

    async bumpMinute(accountId: string, minute: number): Promise<void> {
      await db
        .insertInto('quota_minutes')
        .values({ account_id: accountId, minute, used: 1 })
        .onConflict((oc) => oc.columns(['account_id', 'minute']).doUpdateSet((eb) => ({ used: eb('quota_minutes.used', '+', 1) })))
        .execute()
    },

    async addLease(id: string, accountId: string, keyId: string, expiresAt: number): Promise<void> {
      await db.insertInto('quota_leases').values({ id, account_id: accountId, key_id: keyId, expires_at: expiresAt }).execute()
    },

    async liveLeases(accountId: string, now: number): Promise<number> {
      const row = await db
        .selectFrom('quota_leases')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('account_id', '=', accountId)
        .where('expires_at', '>', now)
        .executeTakeFirstOrThrow()
      return Number(row.n)
    },

    async dropLease(id: string): Promise<void> {
      await db.deleteFrom('quota_leases').where('id', '=', id).execute()
    },

    async renewLeases(ids: readonly string[], expiresAt: number): Promise<void> {
      if (ids.length === 0) return
      await db.updateTable('quota_leases').set({ expires_at: expiresAt }).where('id', 'in', ids).execute()
    },

    /** Deletes leases that lapsed and minute windows before `minute`: rows nothing counts any more. */
    async sweep(now: number, minute: number): Promise<void> {
      await db.deleteFrom('quota_leases').where('expires_at', '<=', now).execute()
      await db.deleteFrom('quota_minutes').where('minute', '<', minute).execute()
    },

    /** Adds to one key's month (a row per key and month, created by the first count). */
    async addUsage(keyId: string, accountId: string, month: string, d: UsageDelta): Promise<void> {
      const updated_at = new Date().toISOString()
      const requests = d.requests ?? 0
      const characters = d.characters ?? 0
      const audioSeconds = d.audioSeconds ?? 0
      const speechSeconds = d.speechSeconds ?? 0
      await db
        .insertInto('key_usage')
        .values({ key_id: keyId, month, account_id: accountId, requests, characters, audio_seconds: audioSeconds, speech_seconds: speechSeconds, updated_at })
        .onConflict((oc) =>
          oc.columns(['account_id', 'key_id', 'month']).doUpdateSet((eb) => ({
            requests: eb('key_usage.requests', '+', requests),
            characters: eb('key_usage.characters', '+', characters),
            audio_seconds: eb('key_usage.audio_seconds', '+', audioSeconds),
            speech_seconds: eb('key_usage.speech_seconds', '+', speechSeconds),
            updated_at,
          })),
        )
        .execute()
    },

    /** The account's usage in `month`, all its keys together. */
    async accountUsage(accountId: string, month: string): Promise<UsageTotals> {
      const row = await db
        .selectFrom('key_usage')
        .select((eb) => [
          eb.fn.sum<number>('requests').as('requests'),
          eb.fn.sum<number>('characters').as('characters'),
          eb.fn.sum<number>('audio_seconds').as('audio_seconds'),
          eb.fn.sum<number>('speech_seconds').as('speech_seconds'),
          eb.fn.max('updated_at').as('updated_at'),
        ])
        .where('account_id', '=', accountId)
        .where('month', '=', month)
        .executeTakeFirstOrThrow()
      // SUM of no rows is null; PostgreSQL returns sums of integers as strings.
      return {
        requests: Number(row.requests ?? 0),
        characters: Number(row.characters ?? 0),
        audioSeconds: Number(row.audio_seconds ?? 0),
        speechSeconds: Number(row.speech_seconds ?? 0),
        updatedAt: row.updated_at ?? null,
      }
    },

    /** Every key's usage, newest month first; one month only when given. */
    async keyUsage(month?: string): Promise<KeyUsageRow[]> {
      let q = db.selectFrom('key_usage').selectAll()
      if (month) q = q.where('month', '=', month)
      const rows = await q.orderBy('month', 'desc').orderBy('account_id').orderBy('key_id').execute()
      return rows.map((r) => ({
        keyId: r.key_id,
        accountId: r.account_id,
        month: r.month,
        requests: Number(r.requests),
        characters: Number(r.characters),
        audioSeconds: Number(r.audio_seconds),
        speechSeconds: Number(r.speech_seconds),
        updatedAt: r.updated_at,
      }))
    },
  }
}

export type QuotaQueries = ReturnType<typeof quotaQueries>

/**
 * The quota tables, in portable statements (upserts through `onConflict`, no dialect SQL). Checks that must
 * hold across nodes run inside `inTurn`, one admission per account at a time on the whole database.
 *
 * With a `shared` change feed (nodes on one PostgreSQL), an account's limits, read by every request, are
 * cached per node like model rows (row-cache.ts): `setLimits` drops them here and, through LISTEN/NOTIFY, on
 * every other node within milliseconds (a lost notice within the cache's 5 s). Counts are never cached.
 */
export function createQuotaRepository(db: Db, shared?: ChangeFeed) {
  const queries = quotaQueries(db)
  // Wrapped: an account without a row of its own (the usual case) is cached too.
  const cache = shared && createRowCache<{ stored: StoredLimits | undefined }>(shared, 'limits')
  return {
    ...queries,
    async limits(accountId: string): Promise<StoredLimits | undefined> {
      if (!cache) return queries.limits(accountId)
      return (await cache.get(accountId, async () => ({ stored: await queries.limits(accountId) })))?.stored
    },
    async setLimits(accountId: string, changes: Partial<StoredLimits>): Promise<void> {
      await queries.setLimits(accountId, changes)
      await cache?.invalidate(accountId)
    },
    /**
     * Runs `work` in a transaction that first bumps the account's gate row: PostgreSQL locks that row until
     * commit, SQLite the database, so admissions of one account on any node run one after another and each
     * sees what the ones before it wrote. What `work` wrote is undone when it throws.
     */
    async inTurn<T>(accountId: string, work: (queries: QuotaQueries) => Promise<T>): Promise<T> {
      return db.transaction().execute(async (trx) => {
        const turned_at = new Date().toISOString()
        await trx
          .insertInto('quota_gates')
          .values({ account_id: accountId, turned_at })
          .onConflict((oc) => oc.column('account_id').doUpdateSet({ turned_at }))
          .execute()
        return work(quotaQueries(trx))
      })
    },
  }
}

export type QuotaRepository = ReturnType<typeof createQuotaRepository>
