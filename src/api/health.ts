import type { FastifyInstance } from 'fastify'
import { sql } from 'kysely'
import type { Deps } from '../deps.js'

/**
 * Liveness (`/healthz`: the process answers) and readiness (`/readyz`: the database answers, warm-up is
 * done and the server is not shutting down; otherwise 503 saying which). A ready answer also reports each
 * TTS engine's state and the streams the node is speaking, for operators and load balancers.
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
      return notReady('Database is not reachable', { database: 'unreachable' })
    }
    const warming = deps.readiness.warming()
    if (warming.length > 0) return notReady(`Warming up: ${warming.join(', ')}`, { warming, engines: engineStates(deps) })
    const { running, queued, limits } = deps.admission.snapshot()
    const streams = Object.values(running).reduce((a, b) => a + b, 0)
    return { status: 'ok', database: 'ok', engines: engineStates(deps), streams: { open: streams, queued, limit: limits.streams } }
  })
}

/**
 * Per engine: `idle` (starts on first use), `starting`, `running` with its workers, or `down` when none of its
 * processes could be started (it keeps retrying; requests for its voices fail meanwhile).
 */
function engineStates(deps: Deps): Record<string, object> {
  const { engines } = deps.speech
  const starting = new Set(engines.starting())
  const started = new Map(engines.started().map((e) => [e.id, e]))
  return Object.fromEntries(engines.ids.map((id) => {
    if (starting.has(id)) return [id, { state: 'starting' }]
    const engine = started.get(id)
    if (!engine) return [id, { state: 'idle' }]
    const load = engine.load?.()
    if (!load) return [id, { state: 'running' }]
    return [id, { state: load.size > 0 ? 'running' : 'down', workers: load.size, busy: load.busy, queued: load.queued }]
  }))
}
