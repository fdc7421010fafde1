import type { FastifyInstance } from 'fastify'
import { SpeechError } from '../errors.js'

/**
 * Unknown paths are 404; a known path with the wrong method is 405 with an `Allow` header. Fastify itself
 * answers both with 404, so the route table is mirrored here as patterns.
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
  app.setNotFoundHandler(async (request, reply) => {
    const path = request.url.split('?')[0] ?? '/'
    const allowed = routes.filter((r) => r.pattern.test(path)).flatMap((r) => [...r.methods])
    if (allowed.length > 0) {
      void reply.header('allow', [...new Set(allowed)].join(', '))
      throw new SpeechError('method_not_allowed', `Method ${request.method} is not allowed on ${path}; use ${[...new Set(allowed)].join(' or ')}`)
    }
    throw new SpeechError('not_found', `No route ${request.method} ${path}; see /docs for the API`)
  })
}
