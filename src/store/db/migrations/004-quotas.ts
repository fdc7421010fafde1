import type { Kysely } from 'kysely'

/**
 * Quotas shared by every node on one database: each account's limits, a gate row per account that admissions
 * lock in turn, the concurrency leases of requests under way (expiring, so a node that dies frees its slots),
 * per-minute request windows, and usage per key and month. Portable DDL (SQLite and PostgreSQL). No foreign keys: the Wyoming surface is metered as the
 * account `wyoming`, which has no row in `accounts`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('account_limits')
    .addColumn('account_id', 'text', (c) => c.primaryKey())
    // null: the configured default; 0: unlimited.
    .addColumn('max_concurrent', 'integer')
    .addColumn('requests_per_minute', 'integer')
    .addColumn('characters_per_month', 'integer')
    .addColumn('audio_seconds_per_month', 'integer')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute()

  await db.schema
    .createTable('quota_gates')
    .addColumn('account_id', 'text', (c) => c.primaryKey())
    // Written by each admission: the upsert locks the row (PostgreSQL) or the database (SQLite) until commit.
    .addColumn('turned_at', 'text', (c) => c.notNull())
    .execute()

  await db.schema
    .createTable('quota_leases')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('key_id', 'text', (c) => c.notNull())
    // Milliseconds since the epoch (a 32-bit integer would not hold it).
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('quota_leases_account').on('quota_leases').columns(['account_id', 'expires_at']).execute()

  await db.schema
    .createTable('quota_minutes')
    .addColumn('account_id', 'text', (c) => c.notNull())
    // Minutes since the epoch.
    .addColumn('minute', 'integer', (c) => c.notNull())
    .addColumn('used', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('quota_minutes_pk', ['account_id', 'minute'])
    .execute()

  await db.schema
    .createTable('key_usage')
    .addColumn('key_id', 'text', (c) => c.notNull())
    // UTC, `YYYY-MM`.
    .addColumn('month', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    // 64-bit: an unlimited key may pass 2^31 characters in a month. PostgreSQL returns these as strings.
    .addColumn('requests', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('characters', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('audio_seconds', 'real', (c) => c.notNull().defaultTo(0))
    .addColumn('speech_seconds', 'real', (c) => c.notNull().defaultTo(0))
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('key_usage_pk', ['account_id', 'key_id', 'month'])
    .execute()
  await db.schema.createIndex('key_usage_account').on('key_usage').columns(['account_id', 'month']).execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['key_usage', 'quota_minutes', 'quota_leases', 'quota_gates', 'account_limits']) await db.schema.dropTable(table).execute()
}
