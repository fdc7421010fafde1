import { mkdirSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import SqliteDatabase from 'better-sqlite3'
import { Kysely, Migrator, PostgresAdapter, PostgresDialect, SqliteDialect, sql, type Dialect } from 'kysely'
import pg from 'pg'
import { migrationProvider } from './migrations/index.js'
import type { Database } from './schema.js'

export type Db = Kysely<Database>

export interface DialectOptions {
  /** A pooled connection failed while idle (the server restarted, the network dropped); the pool replaces it. */
  readonly onIdleError?: (err: Error) => void
  /** Most pooled connections per process (PostgreSQL); default 10. */
  readonly poolSize?: number
}

/** The whole URL (`postgres://user:pass@host:port/db?options=…`) goes to `pg`, which understands libpq's forms. */
function postgresDialect(url: string, options: DialectOptions): Dialect {
  const pool = new pg.Pool({ connectionString: url, max: options.poolSize ?? 10 })
  // Without a listener an idle connection's error (PostgreSQL restarted) would crash the process.
  pool.on('error', (err) => options.onIdleError?.(err))
  return new PostgresDialect({ pool })
}

/**
 * Dialects by URL scheme; each gets the whole URL. Routes and repositories only see Kysely, so the same
 * queries and migrations run on SQLite (one node) and PostgreSQL (several nodes on one database).
 */
const DIALECTS: Record<string, (url: string, options: DialectOptions) => Dialect> = {
  postgres: postgresDialect,
  postgresql: postgresDialect,
  sqlite: (url) => {
    const file = url.startsWith('sqlite:') ? url.slice('sqlite:'.length) : url
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

/** `''` → SQLite in `dataDir`; `sqlite:<path>`, `sqlite::memory:` or `postgres://…`. */
export function dialectFor(databaseUrl: string, dataDir: string, options: DialectOptions = {}): Dialect {
  if (databaseUrl === '') return DIALECTS.sqlite!(resolve(dataDir, 'parla.db'), options)
  const scheme = databaseUrl.slice(0, databaseUrl.indexOf(':'))
  const make = DIALECTS[scheme]
  if (!make) throw new Error(`databaseUrl: unsupported scheme "${scheme}:"; supported: ${Object.keys(DIALECTS).join(', ')}`)
  return make(databaseUrl, options)
}

/** True for a PostgreSQL URL (several nodes may share it). */
export const isPostgresUrl = (databaseUrl: string) => /^postgres(ql)?:/.test(databaseUrl)

/** Opens the database and applies pending migrations. */
export async function openDatabase(dialect: Dialect): Promise<Db> {
  const db = new Kysely<Database>({ dialect })
  // Kysely finds its own tables in any schema unless told which: name the one `search_path` puts first, so
  // two deployments in schemas of one PostgreSQL database keep separate migration records.
  let schema: string | undefined
  try {
    if (db.getExecutor().adapter instanceof PostgresAdapter) {
      schema = (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema
    }
  } catch (err) {
    await db.destroy()
    const why = (err as Error).message || (err as NodeJS.ErrnoException).code || String(err)
    throw new Error(`databaseUrl: cannot use the PostgreSQL database (${why}); check host, port, user, password and database name`, { cause: err })
  }
  // Unordered: migrations added on parallel branches may land in either order. On PostgreSQL Kysely holds an
  // advisory lock while migrating, so nodes starting together migrate once.
  const migrator = new Migrator({
    db, provider: migrationProvider, allowUnorderedMigrations: true, ...(schema && { migrationTableSchema: schema }),
  })
  const { error, results } = await migrator.migrateToLatest()
  const failed = results?.find((r) => r.status === 'Error')
  if (error) {
    await db.destroy()
    throw new Error(`database migration ${failed?.migrationName ?? ''} failed: ${(error as Error).message}`, { cause: error })
  }
  return db
}
