import { decode, encode } from '@msgpack/msgpack'
import type { FastifyInstance } from 'fastify'
import type { WebSocket } from 'ws'
import type { EncoderSession } from '../../audio/types.js'
import type { Deps } from '../../deps.js'
import { isAbortError, SpeechError, toSpeechError } from '../../errors.js'
import { toTtsParams, type TtsParams } from '../../services/tts/params.js'
import type { Principal } from '../../store/db/repositories/keys.js'
import { detectLanguage } from '../../text/index.js'
import { fishLiveErrorMessage } from '../error-wire.js'
import { compileBodyValidator } from '../validators.js'
import { pauseAfterMs, plainText, splitFirstPhrase, TextBuffer } from './live-buffer.js'
import { TtsRequestBody } from './tts-schemas.js'

/** Pause reading the synthesis while this much audio waits in the socket, so slow readers bound memory. */
export const HIGH_WATER_BYTES = 512 * 1024
/** Gap between the last audio frame and `finish`: one client drops a second message arriving in the same tick. */
const FINISH_GAP_MS = 5
/** With less audio than this still to play at the client, the next unit's first phrase goes out on its own. */
const SPLIT_BELOW_LEAD_SEC = 0.3
/** Text kept for language detection. */
const HEARD_CHARS = 400
const validateRequest = compileBodyValidator(TtsRequestBody)
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * `GET /v1/tts/live`: real-time TTS over binary MessagePack frames (fish-compat §6). Client frames:
 * `start {request}`, `text {text}`, `flush`, `stop`. Server frames: `audio {audio: bin}`, then
 * `finish {reason: "stop"}`, or `finish {reason: "error", message}`. A socket may `start` again after
 * `finish`; it closes after `liveIdleTimeoutSec` without frames from the client, unless synthesis for it is
 * under way (and being read).
 */
export async function liveRoutes(app: FastifyInstance, { deps }: { deps: Deps }): Promise<void> {
  app.get(
    '/v1/tts/live',
    {
      websocket: true,
      schema: { hide: true },
      // A refused upgrade (401, 404, …) is answered on the raw socket, which no HTTP parser reads any more:
      // say so and close it, or it lingers open and holds up server shutdown.
      onSend: async (request, reply, payload) => {
        if (request.raw.headers.upgrade && reply.statusCode !== 101) void reply.header('connection', 'close')
        return payload
      },
      onResponse: async (request, reply) => {
        if (request.raw.headers.upgrade && reply.statusCode !== 101) request.raw.socket.end()
      },
    },
    (socket, request) => {
      new LiveSession(socket, deps, request.principal, request.headers.model).listen()
    },
  )
}

/** One `start` … `finish` on a socket. */
interface Utterance {
  readonly params: TtsParams
  readonly buffer: TextBuffer
  /** One encoder for the whole utterance, so its audio frames concatenate to one file. Set once voices are checked. */
  encoder: EncoderSession | null
  /** Units synthesize one after another, in order. */
  queue: Promise<void>
  /** Units queued or synthesizing. */
  inflight: number
  /** The latest text taken for speech (tags removed), for its language: one unit alone is often too short. */
  heard: string
  stopping: boolean
  /** Audio sent so far (seconds) and when the first went out: how much the client still has to play. */
  sentSec: number
  firstSentAt: number
  /** Natural pause owed between the last unit and the next one, ms. */
  pauseMs: number
  /** Since when audio has waited for a client that does not read (backpressure), if it does. */
  blockedSince: number | undefined
  readonly abort: AbortController
  /** Aborts this utterance's synthesis (socket closed, or the utterance failed). */
  readonly signal: AbortSignal
}

class LiveSession {
  private readonly socket: WebSocket
  private readonly deps: Deps
  private readonly principal: Principal
  private readonly model: unknown
  private readonly closed = new AbortController()
  private started: Utterance | null = null
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
    this.idle = setTimeout(() => this.onIdle(), this.deps.config.liveIdleTimeoutSec * 1000)
  }

  private onIdle(): void {
    const s = this.started
    // Synthesis under way is not idleness (a busy server may take a while per sentence), unless the client
    // has not read any of it for the whole timeout.
    const stalled = s?.blockedSince !== undefined && performance.now() - s.blockedSince > this.deps.config.liveIdleTimeoutSec * 1000
    if (s && s.inflight > 0 && !stalled) return this.touch()
    if (s) {
      this.end(s)
      this.send({ event: 'finish', reason: 'error', message: `no frame for ${this.deps.config.liveIdleTimeoutSec} s; closing the socket` })
    }
    this.socket.close(1000, 'idle timeout')
  }

  private onFrame(data: Buffer, isBinary: boolean): void {
    this.touch()
    try {
      if (!isBinary) throw new SpeechError('bad_request', 'frames must be binary MessagePack maps, not text frames')
      let frame: unknown
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
    if (typeof frame !== 'object' || frame === null || Array.isArray(frame) || frame instanceof Uint8Array) {
      throw new SpeechError('bad_request', 'frame must be a MessagePack map with an "event" key')
    }
    const { event } = frame as { event?: unknown }
    if (event === 'start') return this.start((frame as { request?: unknown }).request)
    if (event !== 'text' && event !== 'flush' && event !== 'stop') {
      throw new SpeechError('bad_request', `unknown event ${JSON.stringify(event) ?? 'undefined'}; send start, text, flush or stop`)
    }
    const s = this.started
    if (!s) throw new SpeechError('bad_request', `"${event}" before "start"; send {event: "start", request: {...}} first`)
    if (s.stopping) {
      if (event === 'stop') return
      throw new SpeechError('bad_request', `"${event}" after "stop"; wait for "finish", then "start" again`)
    }
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
    if (this.started) throw new SpeechError('bad_request', '"start" while an utterance is running; send "stop" and wait for "finish" first')
    const body = typeof request === 'object' && request !== null ? { text: '', ...(request as object) } : request
    const issues = validateRequest(body)
    if (issues.length > 0) {
      throw new SpeechError('bad_request', `invalid start request: ${issues.map((i) => `${i.loc.slice(1).join('.') || 'request'}: ${i.msg}`).join('; ')}`)
    }
    const params = toTtsParams(body as TtsRequestBody, this.model, this.deps.config)
    const abort = new AbortController()
    const s: Utterance = {
      params,
      buffer: new TextBuffer(params.chunkLength, params.dialect),
      encoder: null,
      queue: Promise.resolve(),
      inflight: 0,
      heard: '',
      stopping: false,
      sentSec: 0,
      firstSentAt: 0,
      pauseMs: 0,
      blockedSince: undefined,
      abort,
      signal: AbortSignal.any([abort.signal, this.closed.signal]),
    }
    this.started = s
    // Check voices now, so an unknown reference_id fails at start rather than at the first text.
    s.queue = this.deps.tts.prepare({ ...params, text: '' }, this.principal, s.signal).then(
      (speech) => void (s.encoder = speech.newEncoderSession()),
      (err) => this.failed(s, err),
    )
    s.buffer.append(params.text)
    this.speak(s, s.buffer.takeReady())
  }

  /** Queues `text`; when the client has (almost) nothing left to play, its first phrase goes ahead alone. */
  private speak(s: Utterance, text: string): void {
    if (text === '') return
    s.heard = `${s.heard} ${plainText(text, s.params.dialect)}`.slice(-HEARD_CHARS)
    const language = detectLanguage(s.heard)
    const waiting = s.inflight === 0 && this.leadSec(s) < SPLIT_BELOW_LEAD_SEC && s.params.latency !== 'normal'
    for (const unit of waiting ? splitFirstPhrase(text, s.params.dialect) : [text]) this.enqueue(s, unit, language)
  }

  private enqueue(s: Utterance, unit: string, language: string): void {
    s.inflight++
    s.queue = s.queue.then(async () => {
      try {
        const encoder = s.encoder
        if (s.signal.aborted || !encoder) return
        const speech = await this.deps.tts.prepare({ ...s.params, text: unit, languageHint: language }, this.principal, s.signal)
        let first = true
        for await (const event of speech.render(s.signal)) {
          if (event.type !== 'audio') continue
          const samples = first ? this.withPause(s, event.samples, speech.outputRate) : event.samples
          first = false
          await this.sendAudio(s, encoder.push(samples), samples.length / speech.outputRate)
        }
        s.pauseMs = pauseAfterMs(unit, s.params.dialect)
      } catch (err) {
        this.failed(s, err)
      } finally {
        s.inflight--
      }
    })
  }

  /** Seconds of audio the client has been sent but, playing in real time, has not played yet. */
  private leadSec(s: Utterance): number {
    return s.sentSec === 0 ? 0 : s.sentSec - (performance.now() - s.firstSentAt) / 1000
  }

  /**
   * Units are synthesized apart, so the pause their punctuation calls for is added here, less whatever gap
   * the client already heard because the next unit came late.
   */
  private withPause(s: Utterance, samples: Float32Array, rate: number): Float32Array {
    const gapSec = Math.max(0, -this.leadSec(s))
    const sec = Math.max(0, s.pauseMs / 1000 / s.params.speed - gapSec)
    s.pauseMs = 0
    if (sec === 0) return samples
    const out = new Float32Array(Math.round(sec * rate) + samples.length)
    out.set(samples, out.length - samples.length)
    return out
  }

  private stop(s: Utterance): void {
    s.stopping = true
    this.speak(s, s.buffer.takeAll())
    s.queue = s.queue.then(async () => {
      if (s.signal.aborted || !s.encoder) return
      await this.sendAudio(s, s.encoder.end(), 0)
      await sleep(FINISH_GAP_MS)
      if (s.signal.aborted) return
      if (this.started === s) this.started = null
      this.send({ event: 'finish', reason: 'stop' })
    })
  }

  private async sendAudio(s: Utterance, bytes: Uint8Array, seconds: number): Promise<void> {
    if (bytes.length === 0 && seconds === 0) return
    while (this.socket.bufferedAmount > HIGH_WATER_BYTES && this.socket.readyState === this.socket.OPEN && !s.signal.aborted) {
      s.blockedSince ??= performance.now()
      await sleep(10)
    }
    s.blockedSince = undefined
    if (s.signal.aborted) return
    if (s.sentSec === 0) s.firstSentAt = performance.now()
    s.sentSec += seconds
    if (bytes.length === 0) return
    this.send({ event: 'audio', audio: bytes })
    // One frame per turn of the event loop: frames written in one turn reach the client as one read, and
    // npm fish-audio-sdk keeps only the first message of a read. This also lets other sockets take turns.
    await new Promise((resolve) => setImmediate(resolve))
  }

  /** Ends utterance `s` after a synthesis failure and tells the client why. */
  private failed(s: Utterance, err: unknown): void {
    if (s.signal.aborted || isAbortError(err)) return
    this.end(s)
    this.send({ event: 'finish', reason: 'error', message: fishLiveErrorMessage(toSpeechError(err)) })
  }

  /** A bad frame ends the running utterance, if any, and tells the client what was wrong. */
  private fail(err: unknown): void {
    if (this.started) this.end(this.started)
    this.send({ event: 'finish', reason: 'error', message: fishLiveErrorMessage(toSpeechError(err)) })
  }

  private end(s: Utterance): void {
    s.abort.abort(new DOMException('utterance ended', 'AbortError'))
    if (this.started === s) this.started = null
  }

  private send(frame: object): void {
    if (this.socket.readyState !== this.socket.OPEN) return
    this.touch()
    this.socket.send(encode(frame), { binary: true })
  }
}
