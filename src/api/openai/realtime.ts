import type { FastifyInstance } from 'fastify'
import type { Deps } from '../../deps.js'
import { SpeechError } from '../../errors.js'
import type { QuotaTicket } from '../../services/account/quota.js'
import { admitSocket } from '../fish/live-quota.js'
import { RealtimeSession } from './realtime-session.js'

/** Close code telling a client the server restarts and it should reconnect. */
const RESTART_CLOSE_CODE = 1012

/**
 * `GET /v1/realtime?intent=transcription`: OpenAI Realtime transcription sessions over a WebSocket (bearer
 * key, as every route). `model` (the SDK always sends one) is accepted and reported back; recognition uses
 * the server's ASR engine. An open socket holds one of its account's concurrent slots and is refused once the
 * month's audio seconds are used up, as `/v1/audio/transcriptions` is.
 */
export async function realtimeRoutes(app: FastifyInstance, { deps }: { deps: Deps }): Promise<void> {
  const sessions = new Set<RealtimeSession>()
  const tickets = new WeakMap<object, QuotaTicket>()
  app.addHook('preClose', async () => {
    for (const s of sessions) s.close(RESTART_CLOSE_CODE, 'server restarting')
  })
  app.route({
    method: 'GET',
    url: '/v1/realtime',
    schema: { hide: true },
    handler: async (_request, reply) => {
      void reply.header('upgrade', 'websocket')
      throw new SpeechError('upgrade_required', 'GET /v1/realtime is a WebSocket endpoint: connect with a WebSocket client ' +
        "(wss:// URL, 'Authorization: Bearer <API key>', ?intent=transcription), then send JSON events such as session.update")
    },
    preHandler: async (request) => {
      const { intent } = request.query as { intent?: unknown }
      if (intent !== undefined && intent !== 'transcription') {
        const msg = `intent ${JSON.stringify(intent)} is not supported: Parla serves transcription sessions (?intent=transcription)`
        throw new SpeechError('validation_failed', msg, { issues: [{ loc: ['query', 'intent'], msg, type: 'enum' }] })
      }
      if (request.raw.headers.upgrade) tickets.set(request.raw, await admitSocket(deps, request, { transcribes: true }))
    },
    wsHandler: (socket, request) => {
      const { model } = request.query as { model?: unknown }
      const session = new RealtimeSession(socket, deps, typeof model === 'string' ? model : 'parla', request.log, tickets.get(request.raw))
      sessions.add(session)
      socket.once('close', () => sessions.delete(session))
      session.listen()
    },
    // A refused upgrade is answered on the raw socket, which no HTTP parser reads any more: close it after.
    onSend: async (request, reply, payload) => {
      if (request.raw.headers.upgrade && reply.statusCode !== 101) void reply.header('connection', 'close')
      return payload
    },
    onResponse: async (request, reply) => {
      if (request.raw.headers.upgrade && reply.statusCode !== 101) request.raw.socket.end()
    },
  })
}
