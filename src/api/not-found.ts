import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { SpeechError } from '../errors.js'

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * The error for a request no route matched: 405 with an `Allow` header when the path exists under other
     * methods, 404 otherwise. Each surface's not-found handler throws it, so its own error wire shapes it.
     */
    unmatchedRoute(request: FastifyRequest, reply: FastifyReply): SpeechError
  }
}

/**
 * Unknown paths are 404; a known path with the wrong method is 405 with an `Allow` header. Fastify itself
 * answers both with 404, so the route table is mirrored here as patterns. The root handler answers in the
 * Fish shape; surfaces with another shape set a not-found handler on their prefix (see `openai/index.ts`).
 */
export function installNotFound(app: FastifyInstance): void {
  const routes: { pattern: RegExp; methods: Set<string> }[] = []
  app.addHook('onRoute', (route) => {
    if (route.url === '*' || route.url.includes('*')) return
    const source = route.url.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z_]+/g, '[^/]+')
    const pattern = new RegExp(`^${source}/?$`)
    let entry = routes.find((r) => r.pattern.source === pattern.source)
    if (!entry) routes.push((entry = { pattern, methods: new Set() }))
    for (const m of [route.method].flat()) entry.methods.add(m)
  })
  app.decorate('unmatchedRoute', (request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split('?')[0] ?? '/'
    const allowed = [...new Set(routes.filter((r) => r.pattern.test(path)).flatMap((r) => [...r.methods]))]
    if (allowed.length > 0) {
      void reply.header('allow', allowed.join(', '))
      return new SpeechError('method_not_allowed', `Method ${request.method} is not allowed on ${path}; use ${allowed.join(' or ')}`)
    }
    return new SpeechError('not_found', `No route ${request.method} ${path}; see /docs for the API`)
  })
  app.setNotFoundHandler(async (request, reply) => {
    throw app.unmatchedRoute(request, reply)
  })
}
