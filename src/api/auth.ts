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

/**
 * Bearer auth on every route not marked `config: { public: true }`, including WebSocket upgrades. A browser
 * cannot set headers on a WebSocket, so an upgrade without `Authorization` may carry the key as the
 * subprotocol `openai-insecure-api-key.<key>`, as OpenAI's browser Realtime client sends it (and the
 * playground's Dictate button); the server never selects that subprotocol (`selectSubprotocol`).
 */
export function installAuth(app: FastifyInstance, keys: KeyRepository): void {
  app.decorateRequest('principal', null as unknown as Principal)
  app.addHook('onRequest', async (request) => {
    if (request.routeOptions.config?.public || isDocsPath(request.url)) return
    request.principal = await authenticate(request, keys)
  })
}

/** The subprotocol prefix that carries an API key on a browser's WebSocket. */
export const KEY_SUBPROTOCOL = 'openai-insecure-api-key.'

/** The key a WebSocket upgrade carries as a subprotocol, if any. */
function subprotocolKey(request: FastifyRequest): string | undefined {
  const offered = request.headers['sec-websocket-protocol']
  if (!request.headers.upgrade || typeof offered !== 'string') return undefined
  const carrier = offered.split(',').map((p) => p.trim()).find((p) => p.startsWith(KEY_SUBPROTOCOL))
  return carrier?.slice(KEY_SUBPROTOCOL.length)
}

/** ws's subprotocol choice: the first one offered that is not a key (a key is never echoed back). */
export const selectSubprotocol = (offered: Set<string>): string | false =>
  [...offered].find((p) => !p.startsWith(KEY_SUBPROTOCOL)) ?? false

async function authenticate(request: FastifyRequest, keys: KeyRepository): Promise<Principal> {
  const header = request.headers.authorization
  const carried = header ? undefined : subprotocolKey(request)
  if (carried !== undefined) {
    const principal = carried ? await keys.authenticate(carried) : undefined
    if (!principal) throw new SpeechError('unauthorized', `Invalid API key (in the WebSocket subprotocol ${KEY_SUBPROTOCOL}<key>)`)
    return principal
  }
  if (!header) throw new SpeechError('unauthorized', "Missing Authorization header; send 'Authorization: Bearer <API key>'")
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header)
  if (!match) throw new SpeechError('unauthorized', "Authorization header must be 'Bearer <API key>'")
  const principal = await keys.authenticate(match[1]!)
  if (!principal) throw new SpeechError('unauthorized', 'Invalid API key')
  return principal
}

/** The docs UI and its assets are public, like `/openapi.json`. */
const isDocsPath = (url: string) => url === '/docs' || url.startsWith('/docs/') || url.startsWith('/docs?')
