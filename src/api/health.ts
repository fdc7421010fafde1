import type { FastifyInstance } from 'fastify'
import { sql } from 'kysely'
import type { Deps } from '../deps.js'

/** Liveness (`/healthz`: the process answers) and readiness (`/readyz`: the database answers). */
export async function healthRoutes(app: FastifyInstance, { deps }: { deps: Deps }): Promise<void> {
  const hide = { hide: true }
  app.get('/healthz', { config: { public: true }, schema: hide }, async () => ({ status: 'ok' }))
  app.get('/readyz', { config: { public: true }, schema: hide }, async (_request, reply) => {
    try {
      await sql`select 1`.execute(deps.db)
      return { status: 'ok' }
    } catch {
      return reply.code(503).send({ status: 503, message: 'Database is not reachable' })
    }
  })
}
