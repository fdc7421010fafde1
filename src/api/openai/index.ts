import type { FastifyInstance } from 'fastify'
import type { Deps } from '../../deps.js'
import { openAiErrorHandler } from '../openai-error-wire.js'
import { catalogRoutes } from './catalog.js'
import { speechRoutes } from './speech.js'
import { realtimeRoutes } from './realtime.js'
import { transcriptionRoutes } from './transcriptions.js'
import { createVoicePicker } from './voices.js'

/** Path prefixes that belong to this surface: a wrong method or unknown path under them answers in its shape. */
const PREFIXES = ['/v1/audio', '/v1/models', '/v1/realtime']

/** The URL is on this surface: errors the router raises before any route (a bad URL) take its shape too. */
export const isOpenAiPath = (url: string) => PREFIXES.some((p) => url === p || url.startsWith(`${p}/`) || url.startsWith(`${p}?`))

/**
 * The OpenAI-compatible audio surface: same keys, voices, engines and limits as the Fish routes, its own
 * error shape. Registered as one encapsulated plugin, so its error handler answers for these routes only
 * (including the auth hook's 401 and schema validation).
 */
export async function openAiRoutes(app: FastifyInstance, { deps }: { deps: Deps }): Promise<void> {
  app.setErrorHandler(openAiErrorHandler)
  const voices = createVoicePicker(deps)
  await app.register(speechRoutes, { deps, voices })
  await app.register(transcriptionRoutes, { deps })
  await app.register(catalogRoutes, { deps, voices })
  await app.register(realtimeRoutes, { deps })
  for (const prefix of PREFIXES) {
    // A not-found handler on a prefix runs in this context: its auth hook's 401 and its 404/405 are OpenAI-shaped.
    await app.register(async (scope) => {
      scope.setNotFoundHandler(async (request, reply) => {
        throw scope.unmatchedRoute(request, reply)
      })
    }, { prefix })
  }
}
