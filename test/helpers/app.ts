import type { FastifyInstance } from 'fastify'
import { buildApp } from '../../src/app.js'
import { loadConfig } from '../../src/config/load.js'
import type { Config } from '../../src/config/schema.js'
import { createDeps, type Deps, type DepsOverrides } from '../../src/deps.js'
import { freshPostgres } from '../support/postgres/fresh.js'

/** The stores a test server can run on: in-memory SQLite, or a fresh schema in the run's PostgreSQL. */
export const DIALECTS = ['sqlite', 'postgres'] as const
export type TestDialect = (typeof DIALECTS)[number]

export interface TestServer {
  readonly app: FastifyInstance
  readonly deps: Deps
  /** API keys of two separate accounts. */
  readonly alice: string
  readonly bob: string
  readonly aliceAccount: string
  readonly bobAccount: string
  /** `Authorization` header objects for convenience. */
  readonly asAlice: { authorization: string }
  readonly asBob: { authorization: string }
  /** Base URL once `listen()` was called. */
  url: string
  listen(): Promise<string>
  close(): Promise<void>
}

/**
 * A Parla server with two accounts on an in-memory database and blob store, or (`postgres`) on an empty schema
 * of the run's PostgreSQL with the database blob store, as a cluster node runs. Settings can be overridden.
 */
export async function startTestServer(
  settings: Partial<Record<keyof Config, unknown>> = {},
  overrides: Omit<DepsOverrides, 'inMemory'> = {},
  dialect: TestDialect = 'sqlite',
): Promise<TestServer> {
  // Admission limits out of the way unless a test sets them (test/admission.test.ts): on a busy machine the
  // measured engine cost would rightly turn some of a test's concurrent streams away.
  // The same for speech recognition's line: tests that send several transcriptions at once expect them to wait.
  const unlimited = { maxStreams: 100_000, maxStartingStreams: 100_000, asrWaitSec: 3600 }
  const database = dialect === 'postgres' ? await freshPostgres() : undefined
  const flags = { dataDir: '/tmp/parla-test-unused', logLevel: 'silent', ...unlimited, ...settings, ...(database && { databaseUrl: database.url }) }
  const config = loadConfig({ env: {}, file: undefined, flags })
  const deps = await createDeps(config, { ...overrides, inMemory: !database })
  const app = await buildApp(deps)
  const a = await deps.keys.create('alice')
  const b = await deps.keys.create('bob')
  const server: TestServer = {
    app,
    deps,
    alice: a.key,
    bob: b.key,
    aliceAccount: a.info.accountId,
    bobAccount: b.info.accountId,
    asAlice: { authorization: `Bearer ${a.key}` },
    asBob: { authorization: `Bearer ${b.key}` },
    url: '',
    async listen() {
      // Idempotent, so a retried test that listens again gets the same server.
      if (!server.url) server.url = await app.listen({ host: '127.0.0.1', port: 0 })
      return server.url
    },
    async close() {
      // Tests are over: a connection a client left open (a keep-alive socket of an aborted fetch) must not
      // hold up teardown. Production drain has its own deadline (src/server.ts).
      const force = setTimeout(() => app.server.closeAllConnections(), 5000)
      try {
        await app.close()
      } finally {
        clearTimeout(force)
      }
      await deps.close()
      await database?.drop()
    },
  }
  return server
}
