import { mkdirSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import SqliteDatabase from 'better-sqlite3'
import { Kysely, Migrator, SqliteDialect, type Dialect } from 'kysely'
import { migrationProvider } from './migrations/index.js'
import type { Database } from './schema.js'

export type Db = Kysely<Database>

/**
 * Dialects by URL scheme. Routes and repositories only see Kysely, so a PostgreSQL entry
 * (`postgres:` → `PostgresDialect` over `pg`) is the only change needed to run on PostgreSQL.
 */
const DIALECTS: Record<string, (url: URL | string) => Dialect> = {
  sqlite: (url) => {
    const file = typeof url === 'string' ? url : decodeURIComponent(url.pathname)
    if (file !== ':memory:') mkdirSync(dirname(resolve(file)), { recursive: true })
    const sqlite = new SqliteDatabase(file)
    sqlite.pragma('journal_mode = WAL')
    sqlite.pragma('synchronous = NORMAL')
    sqlite.pragma('foreign_keys = ON')
    sqlite.pragma('busy_timeout = 5000')
    return new SqliteDialect({ database: sqlite })
  },
}

/** `''` → SQLite in `dataDir`; `sqlite:<path>` or `sqlite::memory:`; other schemes need a dialect in DIALECTS. */
export function dialectFor(databaseUrl: string, dataDir: string): Dialect {
  if (databaseUrl === '') return DIALECTS.sqlite!(resolve(dataDir, 'parla.db'))
  const scheme = databaseUrl.slice(0, databaseUrl.indexOf(':'))
  const make = DIALECTS[scheme]
  if (!make) throw new Error(`databaseUrl: unsupported scheme "${scheme}:"; supported: ${Object.keys(DIALECTS).join(', ')}`)
  return make(databaseUrl.slice(scheme.length + 1))
}

/** Opens the database and applies pending migrations. */
export async function openDatabase(dialect: Dialect): Promise<Db> {
  const db = new Kysely<Database>({ dialect })
  const { error, results } = await new Migrator({ db, provider: migrationProvider }).migrateToLatest()
  const failed = results?.find((r) => r.status === 'Error')
  if (error) {
    await db.destroy()
    throw new Error(`database migration ${failed?.migrationName ?? ''} failed: ${(error as Error).message}`, { cause: error })
  }
  return db
}
