import { Socket } from 'node:net'
import type { ServerOptions } from 'node:http'
import type { FastifyInstance, FastifyServerOptions } from 'fastify'
import type { Config } from '../config/schema.js'
import { SpeechError } from '../errors.js'
import { fishClientErrorHandler, fishErrorHandler, fishExpectationFailed } from './error-wire.js'

/** Node's default: the request line and headers together, in bytes. */
const MAX_HEADER_BYTES = 16 * 1024

/**
 * How long a client may take to send a request, in three bounds, none of which touches a response stream:
 * - headers: Node's `headersTimeout` (from the first byte of a request to the end of its headers);
 * - whole request: Node's `requestTimeout`, which ends when the request has been received (Node stops
 *   watching a request once its body is complete), so a long TTS stream or a WebSocket session is not cut;
 * - body idle: no byte of the body for `bodyIdleTimeoutSec` (see `installBodyIdleTimeout`).
 * Node checks the first two every `connectionsCheckingInterval`, so that sets how late they can fire.
 */
export function receiveOptions(config: Config): Pick<FastifyServerOptions, 'requestTimeout' | 'clientErrorHandler'> & { http: ServerOptions } {
  const checkMs = Math.min(2000, config.headersTimeoutSec * 1000)
  return {
    requestTimeout: config.bodyTimeoutSec * 1000,
    http: { headersTimeout: config.headersTimeoutSec * 1000, connectionsCheckingInterval: checkMs, maxHeaderSize: MAX_HEADER_BYTES },
    clientErrorHandler: fishClientErrorHandler({
      headersTimeoutSec: config.headersTimeoutSec,
      bodyTimeoutSec: config.bodyTimeoutSec,
      maxHeaderBytes: MAX_HEADER_BYTES,
    }),
  }
}

/** Answers what Node's listener would otherwise answer on its own, in the API's error shape. */
export function installListenerAnswers(app: FastifyInstance, config: Config): void {
  app.server.on('checkExpectation', fishExpectationFailed)
  installBodyIdleTimeout(app, config.bodyIdleTimeoutSec)
}

/**
 * A request body that stops arriving holds a socket, a parser and whatever the route buffered so far. The
 * socket's inactivity timer runs from the start of the request until its body has been read (so a slow link
 * that keeps sending passes, however long the upload), then is cleared before any response streams.
 * Registered before auth, so it also covers bodies of requests that are refused unread.
 */
function installBodyIdleTimeout(app: FastifyInstance, idleSec: number): void {
  app.addHook('onRequest', async (request, reply) => {
    const raw = request.raw
    // inject() has no real socket; GETs and upgrades have no body.
    if (!(raw.socket instanceof Socket) || raw.complete || !hasBody(raw.headers)) return
    const socket = raw.socket
    const onTimeout = () => {
      if (reply.sent) return void socket.destroy()
      void reply.header('connection', 'close')
      reply.raw.once('finish', () => socket.destroySoon())
      const e = new SpeechError('request_timeout', `The request body stopped arriving: no data for ${idleSec} s; send the body without long pauses`)
      fishErrorHandler(e as never, request, reply)
    }
    // Node emits the request's 'timeout' only while the body is incomplete; a body received but not yet read
    // asks the response instead, which stops the timer rather than letting Node close the socket.
    const stop = () => {
      raw.removeListener('timeout', onTimeout)
      reply.raw.removeListener('timeout', stop)
      if (!socket.destroyed) socket.setTimeout(0)
    }
    raw.setTimeout(idleSec * 1000, onTimeout)
    // Node discards the rest of a body answered unread, under its keep-alive timer: keep the idle one.
    reply.raw.once('finish', () => !raw.complete && !socket.destroyed && socket.setTimeout(idleSec * 1000))
    raw.once('end', stop)
    reply.raw.once('timeout', stop)
  })
}

const hasBody = (headers: Record<string, string | string[] | undefined>) =>
  headers['transfer-encoding'] !== undefined || Number(headers['content-length'] ?? 0) > 0
