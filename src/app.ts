import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import websocket from '@fastify/websocket'
import type { WebSocket } from 'ws'
import Fastify, { type FastifyBaseLogger, type FastifyError, type FastifyInstance } from 'fastify'
import { installAuth, selectSubprotocol } from './api/auth.js'
import { registerBodyParsers } from './api/body-parsers.js'
import { fishErrorHandler } from './api/error-wire.js'
import { explainOversizedMessages, websocketErrorHandler } from './api/websocket-close.js'
import { healthRoutes } from './api/health.js'
import { installRequestMetrics, metricsRoutes } from './api/metrics.js'
import { modelRoutes } from './api/fish/models.js'
import { liveRoutes } from './api/fish/live.js'
import { ttsRoutes } from './api/fish/tts.js'
import { asrRoutes } from './api/fish/asr.js'
import { asrLiveRoutes } from './api/fish/asr-live.js'
import { walletRoutes } from './api/fish/wallet.js'
import { isOpenAiPath, openAiRoutes } from './api/openai/index.js'
import { openAiErrorHandler } from './api/openai-error-wire.js'
import { installNotFound } from './api/not-found.js'
import { installListenerAnswers, receiveOptions } from './api/receive-limits.js'
import { installValidators } from './api/validators.js'
import { playgroundRoutes } from './api/web/playground.js'
import type { Deps } from './deps.js'
import { SpeechError } from './errors.js'

/** Builds the HTTP/WebSocket server without listening. `src/server.ts` listens; tests use `inject`. */
export async function buildApp(deps: Deps): Promise<FastifyInstance> {
  const app = Fastify({
    // Request logs are children of the one logger, each with its request id (`reqId`).
    loggerInstance: deps.logger as FastifyBaseLogger,
    bodyLimit: deps.config.maxBodyBytes,
    // Bounds on receiving a request (never on streaming the response), and Node's own answers in our shape.
    ...receiveOptions(deps.config),
    return503OnClosing: true,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
    // The router answers these before any hook runs; send them through the error wire of the URL's surface.
    // A path segment over maxParamLength cannot name anything that exists (ids are short): 404.
    frameworkErrors: (err, request, reply) => {
      const e =
        err.code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? new SpeechError('not_found', 'Not found: a path segment is longer than 500 characters, so no resource has that id')
          : err.code === 'FST_ERR_BAD_URL'
            ? new SpeechError('bad_request', 'The URL is not valid: check its percent-encoding (e.g. %zz is not allowed)')
            : err
      const answer = isOpenAiPath(request.url) ? openAiErrorHandler : fishErrorHandler
      answer(e as unknown as FastifyError, request, reply)
    },
  })
  installValidators(app)
  deps.aliases.onFirstUse((alias, target) => app.log.info({ alias, target }, `voice '${alias}' is an alias: speaking with '${target}' (setting voiceAliases)`))
  installListenerAnswers(app, deps.config)
  app.setErrorHandler(fishErrorHandler)
  installNotFound(app)
  installAuth(app, deps.keys)
  // Each layer that must know when a response ends or its client leaves listens for 'close' on it (Fastify
  // itself, the client signal, metrics, quota and admission places, the stream's pipeline, awaiting the
  // reply): about ten per streamed response is by design, not a leak, and Node's default warns at eleven.
  app.addHook('onRequest', async (_request, reply) => void reply.raw.setMaxListeners(20))
  installRequestMetrics(app, deps.metrics)
  await registerBodyParsers(app, deps.config)
  await app.register(websocket, {
    options: { maxPayload: deps.config.maxBodyBytes, handleProtocols: selectSubprotocol },
    errorHandler: websocketErrorHandler,
    // On close, stop taking sockets but leave open ones to `liveRoutes`, which lets them finish.
    preClose(done) {
      this.websocketServer.close()
      done()
    },
  })
  // Every WebSocket Parla serves: a message over the limit closes with 1009 and says what to send.
  app.websocketServer.on('connection', (socket: WebSocket) => explainOversizedMessages(socket, deps.config.maxBodyBytes))
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
  await app.register(metricsRoutes, { deps })
  await app.register(modelRoutes, { deps })
  await app.register(ttsRoutes, { deps })
  await app.register(liveRoutes, { deps })
  await app.register(asrRoutes, { deps })
  await app.register(asrLiveRoutes, { deps })
  await app.register(walletRoutes, { deps })
  await app.register(playgroundRoutes)
  await app.register(openAiRoutes, { deps })
  // Server start (not in createDeps, which CLI commands also use while a server may be running): delete blobs
  // left by creates a crash cut short, and re-queue training a restart interrupted.
  app.addHook('onReady', async () => {
    await deps.models.recover()
  })
  return app
}
