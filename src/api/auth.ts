import type { FastifyInstance, FastifyRequest } from 'fastify'
import { SpeechError } from '../errors.js'
import type { KeyRepository } from '../store/db/repositories/keys.js'
import type { Principal } from '../principal.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the auth hook on every authenticated route. */
    principal: Principal
  }
  interface FastifyContextConfig {
    /** Routes that answer without an API key (health, docs). */
    public?: boolean
  }
}

/** Bearer auth on every route not marked `config: { public: true }`, including WebSocket upgrades. */
export function installAuth(app: FastifyInstance, keys: KeyRepository): void {
  app.decorateRequest('principal', null as unknown as Principal)
  app.addHook('onRequest', async (request) => {
    if (request.routeOptions.config?.public || isDocsPath(request.url)) return
    request.principal = await authenticate(request, keys)
  })
}

async function authenticate(request: FastifyRequest, keys: KeyRepository): Promise<Principal> {
  const header = request.headers.authorization
  if (!header) throw new SpeechError('unauthorized', "Missing Authorization header; send 'Authorization: Bearer <API key>'")
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header)
  if (!match) throw new SpeechError('unauthorized', "Authorization header must be 'Bearer <API key>'")
  const principal = await keys.authenticate(match[1]!)
  if (!principal) throw new SpeechError('unauthorized', 'Invalid API key')
  return principal
}

/** The docs UI and its assets are public, like `/openapi.json`. */
const isDocsPath = (url: string) => url === '/docs' || url.startsWith('/docs/') || url.startsWith('/docs?')
