import type { FastifyInstance } from 'fastify'
import { sql } from 'kysely'
import type { Deps } from '../deps.js'

/**
 * Liveness (`/healthz`: the process answers) and readiness (`/readyz`: the database answers, warm-up is
 * done and the server is not shutting down; otherwise 503 saying which).
 */
export async function healthRoutes(app: FastifyInstance, { deps }: { deps: Deps }): Promise<void> {
  const hide = { hide: true }
  app.get('/healthz', { config: { public: true }, schema: hide }, async () => ({ status: 'ok' }))
  app.get('/readyz', { config: { public: true }, schema: hide }, async (_request, reply) => {
    const notReady = (message: string, more: object = {}) => reply.code(503).send({ status: 503, message, ...more })
    if (deps.readiness.draining) return notReady('Shutting down; send requests to another instance')
    try {
      await sql`select 1`.execute(deps.db)
    } catch {
      return notReady('Database is not reachable')
    }
    const warming = deps.readiness.warming()
    if (warming.length > 0) return notReady(`Warming up: ${warming.join(', ')}`, { warming })
    return { status: 'ok' }
  })
}
