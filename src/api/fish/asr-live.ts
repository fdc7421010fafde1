import { encode } from '@msgpack/msgpack'
import type { FastifyBaseLogger, FastifyInstance } from 'fastify'
import type { WebSocket } from 'ws'
import type { Deps } from '../../deps.js'
import { isServerFault, SpeechError, toSpeechError } from '../../errors.js'
import type { LiveEvent, LiveSession } from '../../services/asr/live/session.js'
import type { QuotaTicket } from '../../services/account/quota.js'
import { fishLiveErrorMessage } from '../error-wire.js'
import { parseAsrLiveFrame, type AsrLiveFrame } from './asr-live-frames.js'
import { admitSocket } from './live-quota.js'

/** A client that sends this many invalid frames in a row is not speaking the protocol: close with 1008. */
const MAX_BAD_FRAMES = 16

/**
 * `GET /v1/asr/live` (a Parla extension): live transcription over binary MessagePack frames, framed like
 * `/v1/tts/live`. Client: `start {request: {sample_rate, language?, vad?, silence_ms?, padding_ms?, threshold?}}`,
 * `audio {audio: bin}` (16-bit little-endian mono PCM), `commit`, `stop`. Server: `partial {turn, text, stable,
 * tail}`, `final {turn, text, duration, segments, words}`, `failed {turn, message}` (that turn is lost), then `finish {reason: "stop"}` after `stop`, or
 * `finish {reason: "error", message}`. A socket may `start` again after `finish`.
 */
export async function asrLiveRoutes(app: FastifyInstance, { deps }: { deps: Deps }): Promise<void> {
  const tickets = new WeakMap<object, QuotaTicket>()
  const sockets = new Set<WebSocket>()
  app.addHook('preClose', async () => {
    for (const socket of sockets) socket.close(1012, 'server restarting')
  })
  app.route({
    method: 'GET',
    url: '/v1/asr/live',
    schema: { hide: true },
    handler: async (_request, reply) => {
      void reply.header('upgrade', 'websocket')
      throw new SpeechError('upgrade_required', 'GET /v1/asr/live is a WebSocket endpoint: connect with a WebSocket client ' +
        "('Authorization: Bearer <API key>'), then send binary MessagePack frames: start, audio, commit, stop")
    },
    preHandler: async (request) => {
      if (request.raw.headers.upgrade) tickets.set(request.raw, await admitSocket(deps, request, { transcribes: true }))
    },
    wsHandler: (socket, request) => {
      sockets.add(socket)
      socket.once('close', () => sockets.delete(socket))
      new AsrLiveSocket(socket, deps, request.log, tickets.get(request.raw)).listen()
    },
    onSend: async (request, reply, payload) => {
      if (request.raw.headers.upgrade && reply.statusCode !== 101) void reply.header('connection', 'close')
      return payload
    },
    onResponse: async (request, reply) => {
      if (request.raw.headers.upgrade && reply.statusCode !== 101) request.raw.socket.end()
    },
  })
}

class AsrLiveSocket {
  readonly #socket: WebSocket
  readonly #deps: Deps
  readonly #log: FastifyBaseLogger
  readonly #ticket: QuotaTicket | undefined
  #live: LiveSession | undefined
  #badFrames = 0
  #idle: NodeJS.Timeout | undefined

  constructor(socket: WebSocket, deps: Deps, log: FastifyBaseLogger, ticket?: QuotaTicket) {
    this.#socket = socket
    this.#deps = deps
    this.#log = log
    this.#ticket = ticket
  }

  listen(): void {
    this.#touch()
    this.#socket.on('message', (data, isBinary) => this.#onFrame(data as Buffer, isBinary))
    this.#socket.on('close', () => {
      clearTimeout(this.#idle)
      this.#end()
    })
    this.#socket.on('error', () => {})
  }

  #touch(): void {
    clearTimeout(this.#idle)
    this.#idle = setTimeout(() => this.#socket.close(1000, 'idle timeout'), this.#deps.config.liveIdleTimeoutSec * 1000)
  }

  #onFrame(data: Buffer, isBinary: boolean): void {
    this.#touch()
    try {
      this.#handle(parseAsrLiveFrame(data, isBinary))
      this.#badFrames = 0
    } catch (err) {
      this.#fail(err)
      if (++this.#badFrames >= MAX_BAD_FRAMES) this.#socket.close(1008, `${MAX_BAD_FRAMES} invalid frames in a row`)
    }
  }

  #handle(frame: AsrLiveFrame): void {
    if (frame.event === 'start') {
      if (this.#live) throw new SpeechError('bad_request', '"start" while a session is running; send "stop" and wait for "finish" first')
      const live = this.#deps.asr.openLive({ ...frame.request, log: this.#log })
      this.#live = live
      void this.#forward(live)
      return
    }
    const live = this.#live
    if (!live) throw new SpeechError('bad_request', `"${frame.event}" before "start"; send {event: "start", request: {sample_rate: 16000}} first`)
    if (frame.event === 'audio') live.append(frame.audio)
    else if (frame.event === 'commit') live.commit()
    else live.end()
  }

  async #forward(live: LiveSession): Promise<void> {
    let failed = false
    for await (const e of live.events()) {
      if (e.type === 'error' && this.#live === live) {
        failed = true
        this.#fail(e.error)
      } else this.#event(e)
    }
    if (this.#live !== live) return
    this.#end()
    if (!failed) this.#send({ event: 'finish', reason: 'stop' })
  }

  #event(e: LiveEvent): void {
    if (e.type === 'partial') this.#send({ event: 'partial', turn: e.turn, text: [e.stable, e.tail].filter(Boolean).join(' '), stable: e.stable, tail: e.tail })
    else if (e.type === 'final') {
      const segments = e.words.length === 0 ? [] : [{ text: e.text, start: e.words[0]!.start, end: e.words.at(-1)!.end }]
      this.#send({ event: 'final', turn: e.turn, text: e.text, duration: e.audioSec, segments, words: e.words })
    } else if (e.type === 'failed') this.#report(e.error, e.turn)
    else if (e.type === 'idle') this.#socket.close(1000, 'idle timeout')
  }

  /** A failed turn (a busy server): the session goes on, the client is told which turn was lost. */
  #report(err: SpeechError, turn: string): void {
    if (isServerFault(err)) this.#log.error({ err: err.cause ?? err }, 'live transcription failed')
    this.#send({ event: 'failed', turn, message: fishLiveErrorMessage(err) })
  }

  /** Ends the session (if any) and sends `finish` with reason `error`. */
  #fail(err: unknown): void {
    const e = toSpeechError(err)
    if (isServerFault(e)) this.#log.error({ err: e.cause ?? err }, 'live transcription failed')
    this.#end()
    this.#send({ event: 'finish', reason: 'error', message: fishLiveErrorMessage(e) })
  }

  #end(): void {
    const live = this.#live
    if (!live) return
    this.#live = undefined
    live.close()
    if (live.receivedSec > 0) void this.#ticket?.record({ audioSeconds: live.receivedSec })
  }

  #send(frame: object): void {
    if (this.#socket.readyState === this.#socket.OPEN) this.#socket.send(encode(frame), { binary: true })
  }
}
