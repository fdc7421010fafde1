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
    return new SqliteDialect({ database: withStatementCache(sqlite) })
  },
}

/**
 * Kysely's SQLite driver calls `prepare` for every query, and preparing costs about as much as running a
 * point lookup. Hot queries repeat the same SQL text, so prepared statements are reused (bounded, oldest
 * dropped first). Safe because the driver runs one query at a time on its single connection.
 */
function withStatementCache(sqlite: SqliteDatabase.Database, limit = 256): SqliteDatabase.Database {
  const cache = new Map<string, SqliteDatabase.Statement>()
  const prepare = (source: string) => {
    let statement = cache.get(source)
    if (!statement) {
      statement = sqlite.prepare(source)
      if (cache.size >= limit) cache.delete(cache.keys().next().value!)
      cache.set(source, statement)
    }
    return statement
  }
  return new Proxy(sqlite, {
    get: (target, key) => {
      if (key === 'prepare') return prepare
      const value: unknown = Reflect.get(target, key, target)
      // Native methods check their receiver, so they must run on the real object, not the proxy.
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
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
