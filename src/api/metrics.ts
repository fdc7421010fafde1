import { createHash, timingSafeEqual } from 'node:crypto'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { Deps } from '../deps.js'
import { SpeechError } from '../errors.js'

/**
 * `GET /metrics` (Prometheus text format) and the per-request counters behind it. Scrapers carry no API key:
 * with `metricsToken` empty, only loopback clients are answered; with it set, any client presenting it as
 * `Authorization: Bearer <token>` is (see docs/operations.md).
 */
export async function metricsRoutes(app: FastifyInstance, { deps }: { deps: Deps }): Promise<void> {
  const { metrics } = deps
  app.get('/metrics', { config: { public: true }, schema: { hide: true } }, async (request, reply) => {
    allowScrape(request, deps.config.metricsToken)
    return reply.type(metrics.contentType).send(await metrics.text())
  })
}

/** Counts every response by route pattern (`/model/:id`, never the raw URL: one series per route, not per id). */
export function installRequestMetrics(app: FastifyInstance, metrics: Deps['metrics']): void {
  const counted = new WeakSet<FastifyRequest>()
  const count = (request: FastifyRequest, status: number, seconds: number) => {
    if (counted.has(request)) return
    counted.add(request)
    const labels = { route: request.routeOptions.url ?? 'unmatched', method: request.method, status: String(status) }
    metrics.httpRequests.inc(labels)
    metrics.httpDuration.observe(labels, seconds)
  }
  app.addHook('onResponse', async (request, reply) => count(request, reply.statusCode, reply.elapsedTime / 1000))
  // A client that went away before its response ended (a stream cut, a wait given up) gets no onResponse:
  // counted as 499, nginx's "client closed request".
  app.addHook('onRequest', async (request, reply) => {
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished) count(request, 499, reply.elapsedTime / 1000)
    })
  })
}

function allowScrape(request: FastifyRequest, token: string): void {
  if (token === '') {
    if (isLoopback(request.socket.remoteAddress)) return
    throw new SpeechError('forbidden', '/metrics answers loopback clients only; set metricsToken and scrape with Authorization: Bearer <metricsToken>')
  }
  const presented = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1]
  // Hashes have equal lengths, so the comparison takes the same time whatever was sent.
  const digest = (s: string) => createHash('sha256').update(s).digest()
  if (presented === undefined || !timingSafeEqual(digest(presented), digest(token))) {
    throw new SpeechError('unauthorized', "/metrics needs 'Authorization: Bearer <metricsToken>'")
  }
}

const isLoopback = (address: string | undefined) =>
  address !== undefined && (address === '::1' || /^(::ffff:)?127\./.test(address))
