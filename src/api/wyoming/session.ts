import type { Socket } from 'node:net'
import type { FastifyBaseLogger } from 'fastify'
import type { Deps } from '../../deps.js'
import { isAbortError, isServerFault, SpeechError, toSpeechError } from '../../errors.js'
import { wyomingErrorEvent } from './error-event.js'
import { createEventReader, encodeEvent, FramingError, type WyomingEvent } from './framing.js'
import { wyomingInfo } from './info.js'
import { checkLength, readVoice, synthesizePcm, WYOMING_TTS_RATE, type WyomingVoice } from './synthesis.js'
import { WyomingUtterance } from './utterance.js'
import { WYOMING_PRINCIPAL } from './principal.js'
import type { QuotaNeed, QuotaTicket } from '../../services/account/quota.js'

const AUDIO_FORMAT = { rate: WYOMING_TTS_RATE, width: 2, channels: 1 }
/** A sentence is complete once its end punctuation is followed by space: it can be spoken while text still comes. */
const SENTENCE = /^([\s\S]*?[.!?。！？])\s+/

/**
 * One Wyoming connection. Events are read as they arrive; work that answers with audio or text runs in
 * order on one chain, so streamed text keeps arriving while earlier sentences are spoken. A closed socket
 * aborts whatever is running.
 */
export function handleWyomingConnection(socket: Socket, deps: Deps, log: FastifyBaseLogger): void {
  const closed = new AbortController()
  const reader = createEventReader()
  let chain: Promise<void> = Promise.resolve()
  /** One synthesis request; after a failure its remaining pieces are skipped (the error was sent). */
  interface SynthesisRequest { failed: boolean; ticket?: QuotaTicket }
  // Quota admissions under way; a closed connection releases them.
  const tickets = new Set<QuotaTicket>()
  const admit = async (need: QuotaNeed) => {
    const ticket = await deps.quota.admit(WYOMING_PRINCIPAL, need)
    if (closed.signal.aborted) await ticket.release()
    else tickets.add(ticket)
    return ticket
  }
  const release = async (ticket: QuotaTicket | undefined) => {
    if (!ticket) return
    tickets.delete(ticket)
    await ticket.release()
  }
  let stream: { voice: WyomingVoice; text: string; request: SynthesisRequest } | undefined
  let audioOpen = false
  let transcribe: { language?: string } | undefined
  let utterance: WyomingUtterance | undefined

  const send = async (type: string, data?: Record<string, unknown>, payload?: Uint8Array) => {
    if (closed.signal.aborted || socket.destroyed) throw new DOMException('connection closed', 'AbortError')
    if (!socket.write(encodeEvent(type, data, payload))) {
      await new Promise<void>((resolve) => {
        const done = () => (socket.off('drain', done), socket.off('close', done), resolve())
        socket.on('drain', done).on('close', done)
      })
    }
  }
  const sendError = (err: unknown) => {
    if (isAbortError(err) || closed.signal.aborted) return
    const e = toSpeechError(err)
    if (isServerFault(e)) log.error({ err: e.cause ?? err }, 'wyoming request failed')
    void send('error', wyomingErrorEvent(e)).catch(() => {})
  }
  const then = (task: () => Promise<void>) => {
    chain = chain.then(task).catch(sendError)
  }
  /** Errors go out in order with the answers before them. */
  const fail = (err: unknown) => then(async () => {
    throw err
  })
  const utteranceContext = { deps, signal: closed.signal, admit, release, send, refused: fail }
  const speak = (text: string, voice: WyomingVoice, request: SynthesisRequest, whole = false) => then(async () => {
    if ((text.trim() === '' && !whole) || request.failed) return
    try {
      // The request is admitted with its first sentence (one slot until its audio-stop); later ones are charged.
      if (request.ticket) await request.ticket.charge(text.length)
      else request.ticket = await admit({ characters: text.length })
      const ticket = request.ticket
      for await (const pcm of synthesizePcm(deps, text, voice, closed.signal, whole)) {
        if (!audioOpen) await send('audio-start', AUDIO_FORMAT)
        audioOpen = true
        void ticket.record({ speechSeconds: pcm.length / 2 / WYOMING_TTS_RATE })
        await send('audio-chunk', AUDIO_FORMAT, pcm)
      }
    } catch (err) {
      request.failed = true
      audioOpen = false
      await release(request.ticket)
      throw err
    }
  })
  const stopAudio = (request: SynthesisRequest) => then(async () => {
    await release(request.ticket)
    if (request.failed) return
    if (!audioOpen) await send('audio-start', AUDIO_FORMAT)
    audioOpen = false
    await send('audio-stop')
  })

  const onEvent = (event: WyomingEvent) => {
    const d = event.data
    switch (event.type) {
      case 'describe': return then(async () => send('info', await wyomingInfo(deps)))
      case 'ping': return then(() => send('pong', typeof d.text === 'string' ? { text: d.text } : {}))
      case 'synthesize':
        // Inside synthesize-start…stop, clients also send the whole text as one synthesize for older servers.
        if (stream) return
        if (typeof d.text !== 'string') return fail(new SpeechError('bad_request', 'synthesize needs "text" (a string)'))
        {
          const request = { failed: false }
          speak(d.text, readVoice(d), request, true)
          return stopAudio(request)
        }
      case 'synthesize-start':
        stream = { voice: readVoice(d), text: '', request: { failed: false } }
        return
      case 'synthesize-chunk': {
        if (!stream) return fail(new SpeechError('bad_request', 'synthesize-chunk came before synthesize-start'))
        if (typeof d.text !== 'string') return fail(new SpeechError('bad_request', 'synthesize-chunk needs "text" (a string)'))
        stream.text += d.text
        try {
          // Text with no sentence end yet is held; it may not grow past the limit one request has.
          checkLength(deps, stream.text)
        } catch (err) {
          stream.request.failed = true
          stream.text = ''
          return fail(err)
        }
        for (let m = SENTENCE.exec(stream.text); m; m = SENTENCE.exec(stream.text)) {
          speak(m[1]!, stream.voice, stream.request)
          stream.text = stream.text.slice(m[0].length)
        }
        return
      }
      case 'synthesize-stop': {
        if (!stream) return fail(new SpeechError('bad_request', 'synthesize-stop came before synthesize-start'))
        speak(stream.text, stream.voice, stream.request)
        stopAudio(stream.request)
        stream = undefined
        return then(() => send('synthesize-stopped'))
      }
      case 'transcribe':
        transcribe = typeof d.language === 'string' && d.language !== '' ? { language: d.language } : {}
        return
      case 'audio-start':
        utterance?.drop()
        utterance = undefined
        try {
          utterance = new WyomingUtterance(utteranceContext, d, transcribe?.language)
        } catch (err) {
          fail(err)
        }
        return
      case 'audio-chunk':
        try {
          utterance?.push(event.payload)
        } catch (err) {
          utterance?.drop()
          utterance = undefined
          fail(err)
        }
        return
      case 'audio-stop': {
        const finished = utterance
        utterance = undefined
        transcribe = undefined
        if (!finished) return
        return then(() => finished.finish())
      }
      default:
        return fail(new SpeechError('bad_request', `unknown event type '${event.type}'; Parla handles describe, synthesize (and synthesize-start/chunk/stop), transcribe and audio-start/chunk/stop`))
    }
  }

  socket.on('data', (chunk: Buffer) => {
    for (const item of reader.push(chunk)) {
      if (!(item instanceof FramingError)) onEvent(item)
      else {
        fail(new SpeechError('bad_request', `bad event: ${item.message}`))
        if (item.fatal) then(async () => void socket.end())
      }
    }
  })
  socket.on('error', () => {})
  socket.on('close', () => {
    utterance?.drop()
    closed.abort()
    for (const ticket of tickets) void release(ticket)
  })
}
