import { randomUUID } from 'node:crypto'
import type { FastifyBaseLogger } from 'fastify'
import type { WebSocket } from 'ws'
import type { Deps } from '../../deps.js'
import { isServerFault, SpeechError, toSpeechError } from '../../errors.js'
import type { LiveEvent, LiveSession } from '../../services/asr/live/session.js'
import type { QuotaTicket } from '../../services/account/quota.js'
import { openAiRealtimeError } from '../openai-error-wire.js'
import { applyBetaSessionUpdate, applySessionUpdate, defaultConfig, describeBetaSession, describeSession, type RealtimeConfig } from './realtime-config.js'

/** A client that sends this many invalid events in a row is not speaking the protocol: close with 1008. */
const MAX_BAD_EVENTS = 16

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/**
 * One OpenAI Realtime transcription session on a WebSocket: JSON client events in, server events out. Audio
 * goes to a live recognition session made by the first `session.update` (and remade by later ones); its
 * turns come back as speech_started/stopped, committed, transcription deltas (words that stopped changing)
 * and completed. Every problem is an `error` event in OpenAI's shape; the socket stays open.
 */
export class RealtimeSession {
  readonly #socket: WebSocket
  readonly #deps: Deps
  readonly #log: FastifyBaseLogger
  readonly #ticket: QuotaTicket | undefined
  readonly #id = `sess_${randomUUID().replaceAll('-', '').slice(0, 20)}`
  #config: RealtimeConfig
  #live: LiveSession | undefined
  #events = 0
  #badEvents = 0
  #chargedSec = 0
  #idle: NodeJS.Timeout | undefined
  #previousItem: string | null = null
  /** Items numbered per socket: a later session.update starts a new live session, whose turns count from 1 again. */
  #items = 0

  constructor(socket: WebSocket, deps: Deps, model: string, log: FastifyBaseLogger, ticket?: QuotaTicket) {
    this.#socket = socket
    this.#deps = deps
    this.#log = log
    this.#ticket = ticket
    this.#config = defaultConfig(model)
  }

  listen(): void {
    this.#touch()
    this.#socket.on('message', (data, isBinary) => this.#onMessage(data as Buffer, isBinary))
    this.#socket.on('close', () => {
      clearTimeout(this.#idle)
      this.#endLive()
      if (this.#chargedSec > 0) void this.#ticket?.record({ audioSeconds: this.#chargedSec })
    })
    // ws has already begun the closing handshake with the code that says why (1009 too big, 1002, 1007).
    this.#socket.on('error', () => {})
    this.#send({ type: 'session.created', session: describeSession(this.#id, this.#config) })
  }

  /** Closes with 1012 (the server restarts; reconnect). */
  close(code: number, reason: string): void {
    if (this.#socket.readyState === this.#socket.OPEN) this.#socket.close(code, reason)
  }

  #touch(): void {
    clearTimeout(this.#idle)
    this.#idle = setTimeout(() => this.close(1000, 'idle timeout'), this.#deps.config.liveIdleTimeoutSec * 1000)
  }

  #onMessage(data: Buffer, isBinary: boolean): void {
    this.#touch()
    let clientEventId: string | undefined
    try {
      if (isBinary) throw new SpeechError('bad_request', 'events must be JSON text frames, not binary frames')
      let event: unknown
      try {
        event = JSON.parse(data.toString('utf8'))
      } catch {
        throw new SpeechError('bad_request', 'the event is not valid JSON')
      }
      if (!isObject(event)) throw new SpeechError('bad_request', 'an event must be a JSON object with a "type"')
      if (typeof event.event_id === 'string') clientEventId = event.event_id
      this.#handle(event)
      this.#badEvents = 0
    } catch (err) {
      this.#error(err, clientEventId)
      if (++this.#badEvents >= MAX_BAD_EVENTS) this.close(1008, `${MAX_BAD_EVENTS} invalid events in a row`)
    }
  }

  #handle(event: Record<string, unknown>): void {
    switch (event.type) {
      case 'session.update':
        return this.#update(applySessionUpdate(event.session, this.#config), false)
      case 'transcription_session.update':
        return this.#update(applyBetaSessionUpdate(event.session, this.#config), true)
      case 'input_audio_buffer.append': {
        if (typeof event.audio !== 'string') throw new SpeechError('bad_request', 'input_audio_buffer.append needs "audio", base64-encoded PCM')
        const live = this.#requireLive(event.type)
        live.append(Buffer.from(event.audio, 'base64'))
        return
      }
      case 'input_audio_buffer.commit':
        return this.#requireLive(event.type).commit()
      case 'input_audio_buffer.clear':
        return this.#requireLive(event.type).clear()
      default: {
        const name = JSON.stringify(event.type)?.slice(0, 80) ?? 'nothing'
        throw new SpeechError('bad_request', `unknown or unsupported event type ${name}; a transcription session takes session.update and input_audio_buffer.append, commit and clear`)
      }
    }
  }

  #requireLive(type: string): LiveSession {
    if (!this.#live) {
      throw new SpeechError('bad_request', `${type} before session.update: configure the session first ({"type": "session.update", "session": {"type": "transcription", ...}})`)
    }
    return this.#live
  }

  #update(config: RealtimeConfig, beta: boolean): void {
    const live = this.#deps.asr.openLive({
      inputRate: config.rate,
      ...(config.language !== undefined && { language: config.language }),
      turns: config.turns,
      log: this.#log,
    })
    // Settings change what the audio means: audio and a turn under way with the old ones are dropped.
    this.#endLive()
    this.#config = config
    this.#live = live
    // Audio times count from the socket's first audio, as OpenAI's do, across session updates.
    void this.#forward(live, this.#chargedSec)
    this.#send(beta
      ? { type: 'transcription_session.updated', session: describeBetaSession(this.#id, config) }
      : { type: 'session.updated', session: describeSession(this.#id, config) })
  }

  #endLive(): void {
    if (!this.#live) return
    this.#chargedSec += this.#live.receivedSec
    this.#live.close()
    this.#live = undefined
  }

  async #forward(live: LiveSession, offsetSec: number): Promise<void> {
    const items = new Map<string, string>()
    const item = (turn: string) => {
      let id = items.get(turn)
      if (id === undefined) items.set(turn, (id = `item_${String(++this.#items).padStart(4, '0')}`))
      return { item_id: id }
    }
    const ms = (sec: number) => Math.round((offsetSec + sec) * 1000)
    for await (const event of live.events()) {
      if (live !== this.#live) continue
      this.#event(event, item, ms)
    }
  }

  #event(e: LiveEvent, item: (turn: string) => { item_id: string }, ms: (sec: number) => number): void {
    switch (e.type) {
      case 'speech_started':
        return this.#send({ type: 'input_audio_buffer.speech_started', audio_start_ms: ms(e.atSec), ...item(e.turn) })
      case 'speech_stopped':
        return this.#send({ type: 'input_audio_buffer.speech_stopped', audio_end_ms: ms(e.atSec), ...item(e.turn) })
      case 'committed': {
        const committed = item(e.turn)
        this.#send({ type: 'input_audio_buffer.committed', previous_item_id: this.#previousItem, ...committed })
        this.#previousItem = committed.item_id
        return
      }
      case 'partial':
        if (e.delta === '') return
        return this.#send({ type: 'conversation.item.input_audio_transcription.delta', ...item(e.turn), content_index: 0, delta: e.delta })
      case 'final':
        return this.#send({
          type: 'conversation.item.input_audio_transcription.completed', ...item(e.turn), content_index: 0, transcript: e.text,
          usage: { type: 'duration', seconds: Math.ceil(e.audioSec) },
        })
      case 'failed': {
        const { error } = openAiRealtimeError(e.error, '')
        if (isServerFault(e.error)) this.#log.error({ err: e.error.cause ?? e.error }, 'live transcription failed')
        return this.#send({ type: 'conversation.item.input_audio_transcription.failed', ...item(e.turn), content_index: 0, error })
      }
      case 'cleared':
        return this.#send({ type: 'input_audio_buffer.cleared' })
      case 'error':
        return this.#error(e.error)
      case 'idle':
        return
    }
  }

  #error(err: unknown, clientEventId?: string): void {
    const e = toSpeechError(err)
    if (isServerFault(e)) this.#log.error({ err: e.cause ?? err }, 'realtime session failed')
    this.#send(openAiRealtimeError(e, this.#eventId(), clientEventId), false)
  }

  #eventId(): string {
    return `event_${this.#id.slice(5, 13)}${String(++this.#events).padStart(5, '0')}`
  }

  #send(event: Record<string, unknown>, withId = true): void {
    if (this.#socket.readyState !== this.#socket.OPEN) return
    this.#socket.send(JSON.stringify(withId ? { event_id: this.#eventId(), ...event } : event))
  }
}
