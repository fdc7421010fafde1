import { encode } from '@msgpack/msgpack'
import type { FastifyBaseLogger, FastifyInstance } from 'fastify'
import type { WebSocket } from 'ws'
import type { Deps } from '../../deps.js'
import { isServerFault, SpeechError, toSpeechError } from '../../errors.js'
import { toTtsParams } from './tts-params.js'
import type { Principal } from '../../principal.js'
import { fishLiveErrorMessage } from '../error-wire.js'
import { startHeartbeat } from './live-heartbeat.js'
import { notUpgraded, parseLiveFrame, type LiveFrame } from './live-frames.js'
import { Utterance } from './live-utterance.js'
import type { TtsRequestBody } from './tts-schemas.js'
import type { QuotaTicket } from '../../services/account/quota.js'
import { admitSocket } from './live-quota.js'

export { HIGH_WATER_BYTES } from './live-utterance.js'

/** Close codes that say why (RFC 6455 §7.4.1); 1009 (a frame over the size limit) is sent by `ws` (see websocket-close.ts). */
const CLOSE = { policy: 1008, serverError: 1011 } as const
/** A client that sends this many invalid frames in a row is not speaking the protocol: close with 1008. */
const MAX_BAD_FRAMES = 16
/** Close code telling a live client the server restarts and it should reconnect (RFC 6455 registry). */
export const RESTART_CLOSE_CODE = 1012

/**
 * `GET /v1/tts/live`: real-time TTS over binary MessagePack frames (fish-compat §6). Client frames:
 * `start {request, debug?}`, `text {text}`, `flush`, `stop`. Server frames: `audio {audio: bin}`, then
 * `finish {reason: "stop"}`, or `finish {reason: "error", message}`; with `debug: true`, also
 * `log {message}` before the audio of text whose language decision is new. A socket may `start` again after
 * `finish`; it closes after `liveIdleTimeoutSec` without frames or heartbeats from the client, unless synthesis
 * for it is under way (and being read); a peer that stops answering the server's pings is dropped.
 */
export async function liveRoutes(app: FastifyInstance, { deps }: { deps: Deps }): Promise<void> {
  const sessions = new Set<LiveSession>()
  const tickets = new WeakMap<object, QuotaTicket>()
  // Shutdown: each socket finishes the text it was given, then closes with 1012 so its client reconnects to
  // another instance (or this one, restarted). `server.ts` cuts sockets still open at its deadline.
  app.addHook('preClose', async () => {
    await Promise.all([...sessions].map((s) => s.drain()))
  })
  app.route({
    method: 'GET',
    url: '/v1/tts/live',
    schema: { hide: true },
    // A plain GET (no upgrade) is told what this route is, rather than getting an empty 404.
    handler: async (_request, reply) => {
      void reply.header('upgrade', 'websocket')
      throw notUpgraded()
    },
    // An open socket holds one of its account's concurrent slots until it closes (docs/quotas.md); a refusal
    // is an HTTP 429 with Retry-After before the upgrade.
    preHandler: async (request) => {
      if (request.raw.headers.upgrade) tickets.set(request.raw, await admitSocket(deps, request))
    },
    wsHandler: (socket, request) => {
      const session = new LiveSession(socket, deps, request.principal, request.headers.model, request.log, tickets.get(request.raw))
      sessions.add(session)
      deps.metrics.liveSockets.inc()
      socket.once('close', () => {
        sessions.delete(session)
        deps.metrics.liveSockets.dec()
      })
      session.listen()
    },
    // A refused upgrade (401, 404, …) is answered on the raw socket, which no HTTP parser reads any more:
    // say so and close it, or it lingers open and holds up server shutdown.
    onSend: async (request, reply, payload) => {
      if (request.raw.headers.upgrade && reply.statusCode !== 101) void reply.header('connection', 'close')
      return payload
    },
    onResponse: async (request, reply) => {
      if (request.raw.headers.upgrade && reply.statusCode !== 101) request.raw.socket.end()
    },
  })
}

class LiveSession {
  private readonly socket: WebSocket
  private readonly deps: Deps
  private readonly principal: Principal
  private readonly model: unknown
  private readonly log: FastifyBaseLogger
  private readonly closed = new AbortController()
  private started: Utterance | null = null
  private idle: NodeJS.Timeout | undefined
  private badFrames = 0
  /** The socket's quota admission (released when its connection closes, see live-quota.ts). */
  private readonly quota: QuotaTicket | undefined

  constructor(socket: WebSocket, deps: Deps, principal: Principal, model: unknown, log: FastifyBaseLogger, quota?: QuotaTicket) {
    this.quota = quota
    this.socket = socket
    this.deps = deps
    this.principal = principal
    this.model = model
    this.log = log
  }

  /** Lets the running utterance speak what it was given, then closes with 1012; resolves once closed. */
  async drain(): Promise<void> {
    const open = () => this.socket.readyState === this.socket.OPEN
    while (this.started?.busy && open()) await new Promise((resolve) => setTimeout(resolve, 50))
    if (this.socket.readyState === this.socket.CLOSED) return
    const closed = new Promise((resolve) => this.socket.once('close', resolve))
    if (open()) this.socket.close(RESTART_CLOSE_CODE, 'server restarting')
    await closed
  }

  listen(): void {
    this.touch()
    const stopHeartbeat = startHeartbeat(this.socket, {
      intervalMs: this.deps.config.livePingIntervalSec * 1000,
      onActivity: () => this.touch(),
    })
    this.socket.on('message', (data, isBinary) => this.onFrame(data as Buffer, isBinary))
    this.socket.on('close', () => {
      stopHeartbeat()
      clearTimeout(this.idle)
      this.closed.abort(new DOMException('socket closed', 'AbortError'))
    })
    // ws has already started the closing handshake with the code that says why (1009 too big, 1002 protocol,
    // 1007 bad UTF-8); see websocketErrorHandler.
  }

  private touch(): void {
    clearTimeout(this.idle)
    this.idle = setTimeout(() => this.onIdle(), this.deps.config.liveIdleTimeoutSec * 1000)
  }

  private onIdle(): void {
    const s = this.started
    const timeout = this.deps.config.liveIdleTimeoutSec
    // Synthesis under way is not idleness (a busy server may take a while per sentence), unless the client
    // has read none of it for the whole timeout: then a closing handshake would not be read either.
    if (s?.busy && s.stalledSec < timeout) return this.touch()
    if (s?.busy) {
      s.end()
      return this.socket.terminate()
    }
    if (s) this.report(s, `no frame for ${timeout} s; closing the socket`)
    this.socket.close(1000, 'idle timeout')
  }

  private onFrame(data: Buffer, isBinary: boolean): void {
    this.touch()
    try {
      this.handle(parseLiveFrame(data, isBinary))
      this.badFrames = 0
    } catch (err) {
      // A bad frame ends the running utterance, if any, and tells the client what was wrong.
      const e = toSpeechError(err)
      this.fail(this.started, e)
      if (e.status >= 500) return this.socket.close(CLOSE.serverError, 'internal server error')
      if (++this.badFrames >= MAX_BAD_FRAMES) this.socket.close(CLOSE.policy, `${MAX_BAD_FRAMES} invalid frames in a row`)
    }
  }

  private handle(frame: LiveFrame): void {
    if (frame.event === 'start') return this.start(frame.request, frame.debug)
    const { event } = frame
    const s = this.started
    if (!s) {
      throw new SpeechError('bad_request', `"${event}" before "start"; send {event: "start", request: {...}} first`)
    }
    if (s.stopping) {
      if (event === 'stop') return
      throw new SpeechError('bad_request', `"${event}" after "stop"; wait for "finish", then "start" again`)
    }
    if (frame.event === 'text') {
      if (s.buffer.length + frame.text.length > this.deps.config.maxTextLength) {
        const limit = this.deps.config.maxTextLength
        throw new SpeechError('bad_request', `buffered text exceeds ${limit} characters; send flush or stop more often`)
      }
      s.buffer.append(frame.text)
      s.speak(s.buffer.takeReady())
    } else if (event === 'flush') s.speak(s.buffer.takeAll())
    else s.stop(() => this.started === s && (this.started = null))
  }

  private start(body: TtsRequestBody, debug: boolean): void {
    if (this.started) {
      throw new SpeechError('bad_request', '"start" while an utterance is running; send "stop" and wait for "finish" first')
    }
    const params = toTtsParams(body, this.model, this.deps.config)
    const ctx = {
      tts: this.deps.tts,
      admission: this.deps.admission,
      principal: this.principal,
      socket: this.socket,
      send: (frame: object) => this.send(frame),
      failed: (err: unknown) => this.fail(s, err),
      ...(this.quota && { quota: this.quota }),
      debug,
    }
    const s: Utterance = new Utterance(params, ctx, this.closed.signal)
    this.started = s
    s.buffer.append(params.text)
    s.speak(s.buffer.takeReady())
  }

  /** Like `report`, for an error; a server fault (5xx) is logged with the request id, once. */
  private fail(s: Utterance | null, err: unknown): void {
    const e = toSpeechError(err)
    if (isServerFault(e)) this.log.error({ err: e.cause ?? err }, 'live synthesis failed')
    this.report(s, fishLiveErrorMessage(e))
  }

  /** Ends utterance `s` (if it is still the running one) and sends `finish` with reason `error`. */
  private report(s: Utterance | null, message: string): void {
    if (s && s !== this.started) return
    if (s) {
      s.end()
      this.started = null
    }
    this.send({ event: 'finish', reason: 'error', message })
  }

  private send(frame: object): void {
    if (this.socket.readyState !== this.socket.OPEN) return
    this.touch()
    this.socket.send(encode(frame), { binary: true })
  }
}
