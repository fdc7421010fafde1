import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import websocket from '@fastify/websocket'
import Fastify, { type FastifyInstance } from 'fastify'
import { installAuth } from './api/auth.js'
import { registerBodyParsers } from './api/body-parsers.js'
import { fishErrorHandler } from './api/error-wire.js'
import { healthRoutes } from './api/health.js'
import { installNotFound } from './api/not-found.js'
import { installValidators } from './api/validators.js'
import type { Deps } from './deps.js'

export interface BuildOptions {
  /** pino logger options, or false for none (tests). */
  readonly logger?: boolean | object
}

/** Builds the HTTP/WebSocket server without listening. `src/cli/serve.ts` listens; tests use `inject`. */
export async function buildApp(deps: Deps, options: BuildOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: options.logger ?? false,
    bodyLimit: deps.config.maxBodyBytes,
    // Long TTS streams and WebSocket sessions set their own limits; no global request timeout.
    requestTimeout: 0,
    return503OnClosing: true,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
  })
  installValidators(app)
  app.setErrorHandler(fishErrorHandler)
  installNotFound(app)
  installAuth(app, deps.keys)
  await registerBodyParsers(app, deps.config)
  await app.register(websocket, { options: { maxPayload: deps.config.maxBodyBytes } })
  await app.register(swagger, {
    openapi: {
      info: { title: 'Parla speech API', version: '1', description: 'Fish-Audio-compatible speech API: TTS, ASR, voice models.' },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearer: [] }],
    },
  })
  await app.register(swaggerUi, { routePrefix: '/docs', uiHooks: {}, staticCSP: true })
  app.get('/openapi.json', { config: { public: true }, schema: { hide: true } }, async () => app.swagger())
  await app.register(healthRoutes, { deps })
  return app
}
