import { decode, encode } from '@msgpack/msgpack'
import type { FastifyInstance } from 'fastify'
import type { WebSocket } from 'ws'
import type { EncoderSession } from '../../audio/types.js'
import type { Deps } from '../../deps.js'
import { isAbortError, SpeechError, toSpeechError } from '../../errors.js'
import { toTtsParams, type TtsParams } from '../../services/tts/params.js'
import type { Principal } from '../../store/db/repositories/keys.js'
import { fishLiveErrorMessage } from '../error-wire.js'
import { compileBodyValidator } from '../validators.js'
import { TextBuffer } from './live-buffer.js'
import { TtsRequestBody } from './tts-schemas.js'

/** Pause reading the synthesis while this much audio waits in the socket, so slow readers bound memory. */
const HIGH_WATER_BYTES = 512 * 1024
const validateRequest = compileBodyValidator(TtsRequestBody)

/**
 * `GET /v1/tts/live`: real-time TTS over binary MessagePack frames (fish-compat §6). Client frames:
 * `start {request}`, `text {text}`, `flush`, `stop`. Server frames: `audio {audio: bin}`, then
 * `finish {reason: "stop"}`, or `finish {reason: "error", message}`. A socket may `start` again after
 * `finish`; it closes after `liveIdleTimeoutSec` without frames.
 */
export async function liveRoutes(app: FastifyInstance, { deps }: { deps: Deps }): Promise<void> {
  app.get('/v1/tts/live', { websocket: true, schema: { hide: true } }, (socket, request) => {
    new LiveSession(socket, deps, request.principal, request.headers.model).listen()
  })
}

interface Started {
  readonly params: TtsParams
  readonly encoder: EncoderSession
  readonly buffer: TextBuffer
  /** Units synthesize one after another, in order. */
  queue: Promise<void>
  /** Aborts this session's synthesis (socket closed, or the session failed). */
  readonly signal: AbortSignal
  readonly abort: AbortController
}

class LiveSession {
  private readonly socket: WebSocket
  private readonly deps: Deps
  private readonly principal: Principal
  private readonly model: unknown
  private readonly closed = new AbortController()
  private started: Started | null = null
  private idle: NodeJS.Timeout | undefined

  constructor(socket: WebSocket, deps: Deps, principal: Principal, model: unknown) {
    this.socket = socket
    this.deps = deps
    this.principal = principal
    this.model = model
  }

  listen(): void {
    this.touch()
    this.socket.on('message', (data, isBinary) => this.onFrame(data as Buffer, isBinary))
    this.socket.on('close', () => {
      clearTimeout(this.idle)
      this.closed.abort(new DOMException('socket closed', 'AbortError'))
    })
    this.socket.on('error', () => this.socket.terminate())
  }

  private touch(): void {
    clearTimeout(this.idle)
    this.idle = setTimeout(() => this.socket.close(1000, 'idle timeout'), this.deps.config.liveIdleTimeoutSec * 1000)
  }

  private onFrame(data: Buffer, isBinary: boolean): void {
    this.touch()
    let frame: unknown
    try {
      if (!isBinary) throw new SpeechError('bad_request', 'frames must be binary MessagePack maps, not text frames')
      try {
        frame = decode(data)
      } catch (err) {
        throw new SpeechError('bad_request', `frame is not valid MessagePack: ${(err as Error).message}`)
      }
      this.handle(frame)
    } catch (err) {
      this.fail(err)
    }
  }

  private handle(frame: unknown): void {
    if (typeof frame !== 'object' || frame === null || Array.isArray(frame)) throw new SpeechError('bad_request', 'frame must be a MessagePack map with an "event" key')
    const { event } = frame as { event?: unknown }
    if (event === 'start') return this.start((frame as { request?: unknown }).request)
    if (event !== 'text' && event !== 'flush' && event !== 'stop') {
      throw new SpeechError('bad_request', `unknown event ${JSON.stringify(event)}; send start, text, flush or stop`)
    }
    const s = this.started
    if (!s) throw new SpeechError('bad_request', `"${event}" before "start"; send {event: "start", request: {...}} first`)
    if (event === 'text') {
      const text = (frame as { text?: unknown }).text
      if (typeof text !== 'string') throw new SpeechError('bad_request', 'text event needs "text" as a string')
      if (s.buffer.length + text.length > this.deps.config.maxTextLength) {
        throw new SpeechError('bad_request', `buffered text exceeds ${this.deps.config.maxTextLength} characters; send flush or stop more often`)
      }
      s.buffer.append(text)
      this.speak(s, s.buffer.takeReady())
    } else if (event === 'flush') this.speak(s, s.buffer.takeAll())
    else this.stop(s)
  }

  private start(request: unknown): void {
    if (this.started) throw new SpeechError('bad_request', '"start" while a session is running; send "stop" and wait for "finish" first')
    const body = typeof request === 'object' && request !== null ? { text: '', ...(request as object) } : request
    const issues = validateRequest(body)
    if (issues.length > 0) {
      throw new SpeechError('bad_request', `invalid start request: ${issues.map((i) => `${i.loc.slice(1).join('.') || 'request'}: ${i.msg}`).join('; ')}`)
    }
    const params = toTtsParams(body as TtsRequestBody, this.model, this.deps.config)
    const abort = new AbortController()
    const session: Started = {
      params,
      encoder: null as unknown as EncoderSession,
      buffer: new TextBuffer(params.chunkLength),
      queue: Promise.resolve(),
      abort,
      signal: AbortSignal.any([abort.signal, this.closed.signal]),
    }
    this.started = session
    // Check voices now, so an unknown reference_id fails at start, and open one encoder for the whole session.
    session.queue = this.deps.tts.prepare({ ...params, text: '' }, this.principal, session.signal).then(
      (speech) => void ((session as { encoder: EncoderSession }).encoder = speech.newEncoderSession()),
      (err) => this.sessionFailed(session, err),
    )
    if (params.text.trim() !== '') this.speak(session, params.text)
  }

  private speak(s: Started, text: string): void {
    if (text === '') return
    s.queue = s.queue.then(async () => {
      if (s.signal.aborted) return
      try {
        const speech = await this.deps.tts.prepare({ ...s.params, text }, this.principal, s.signal)
        for await (const event of speech.render(s.signal)) {
          if (event.type === 'audio') await this.sendAudio(s.encoder.push(event.samples))
        }
      } catch (err) {
        this.sessionFailed(s, err)
      }
    })
  }

  private stop(s: Started): void {
    this.speak(s, s.buffer.takeAll())
    s.queue = s.queue.then(async () => {
      if (this.started === s) this.started = null
      if (s.signal.aborted) return
      await this.sendAudio(s.encoder.end())
      // Not in the same tick as the last audio frame: one client drops a second message per tick.
      await new Promise((resolve) => setTimeout(resolve, 5))
      this.send({ event: 'finish', reason: 'stop' })
    })
  }

  private async sendAudio(bytes: Uint8Array): Promise<void> {
    if (bytes.length === 0) return
    while (this.socket.bufferedAmount > HIGH_WATER_BYTES && this.socket.readyState === this.socket.OPEN) await new Promise((resolve) => setTimeout(resolve, 10))
    this.send({ event: 'audio', audio: bytes })
  }

  /** Ends session `s` after a synthesis failure and tells the client why. */
  private sessionFailed(s: Started, err: unknown): void {
    if (s.signal.aborted || isAbortError(err)) return
    this.end(s)
    this.send({ event: 'finish', reason: 'error', message: fishLiveErrorMessage(toSpeechError(err)) })
  }

  /** A bad frame ends the running session, if any, and tells the client what was wrong. */
  private fail(err: unknown): void {
    if (this.started) this.end(this.started)
    this.send({ event: 'finish', reason: 'error', message: fishLiveErrorMessage(toSpeechError(err)) })
  }

  private end(s: Started): void {
    s.abort.abort(new DOMException('session ended', 'AbortError'))
    if (this.started === s) this.started = null
  }

  private send(frame: object): void {
    if (this.socket.readyState === this.socket.OPEN) this.socket.send(encode(frame), { binary: true })
  }
}
