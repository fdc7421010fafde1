import { Readable } from 'node:stream'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Deps } from '../../deps.js'
import { SpeechError } from '../../errors.js'
import { toTtsParams } from './tts-params.js'
import { nothingToSpeak, type PreparedSpeech } from '../../services/tts/service.js'
import { clientSignal } from '../client-signal.js'
import { admitStream, admitted } from '../admitted-stream.js'
import { admitHttp } from '../quota-admission.js'
import { meteredSpeech } from '../../services/account/metered-speech.js'
import { sseEvents } from './sse.js'
import { encodedAudio } from '../../services/tts/encoded-audio.js'
import { ModelHeader, TtsRequestBody } from './tts-schemas.js'
import { describeLanguages } from './language-note.js'

const ENGINE_NOTE =
  'Sampling fields (temperature, top_p, repetition_penalty, max_new_tokens, condition_on_previous_chunks, early_stop_threshold) ' +
  'are validated and passed to engines with a token sampler; the built-in classic engines (festival, flite, eSpeak NG) have none and ignore them.'

/** `POST /v1/tts` (streamed audio bytes) and `POST /v1/tts/stream/with-timestamp` (SSE with word timing). */
export async function ttsRoutes(app: FastifyInstance, { deps }: { deps: Deps }): Promise<void> {
  const schema = (summary: string, produces: string[]) => ({
    summary,
    description: ENGINE_NOTE,
    tags: ['tts'],
    body: TtsRequestBody,
    headers: ModelHeader,
    consumes: ['application/json', 'application/msgpack'],
    produces,
  })

  const prepare = async (request: FastifyRequest<{ Body: TtsRequestBody }>, reply: FastifyReply, signal: AbortSignal) => {
    const body = request.body
    if (body.text.trim() === '') throw new SpeechError('unusable_input', 'text is empty; send the text to speak', { field: ['body', 'text'], type: 'string_too_short' })
    const speech = await deps.tts.prepare(toTtsParams(body, request.headers.model, deps.config), request.principal, signal)
    if (speech.chunks.length === 0) throw nothingToSpeak()
    // Once the request is known to be speakable (an unknown voice is no request for speech): a slot until the
    // response is over, and the text's characters against the monthly limit.
    const ticket = await admitHttp(deps, request, reply, { characters: body.text.length })
    return meteredSpeech(speech, ticket)
  }

  app.post<{ Body: TtsRequestBody }>('/v1/tts', { schema: schema('Text to speech: audio bytes, streamed as they are produced', ['audio/mpeg', 'audio/wav', 'audio/ogg', 'application/octet-stream']) }, async (request, reply) => {
    const signal = clientSignal(reply)
    const speech = await prepare(request, reply, signal)
    const ticket = await admitStream(deps, reply, 'tts', signal, request.body.text.length)
    languageHeaders(reply, speech)
    return sendStream(reply, speech.encoder.contentType, admitted(ticket, encodedAudio(speech, signal)), signal)
  })

  app.post<{ Body: TtsRequestBody }>('/v1/tts/stream/with-timestamp', { schema: schema('Text to speech as Server-Sent Events with word timing', ['text/event-stream']) }, async (request, reply) => {
    const signal = clientSignal(reply)
    const speech = await prepare(request, reply, signal)
    const ticket = await admitStream(deps, reply, 'sse', signal, request.body.text.length)
    languageHeaders(reply, speech)
    void reply.header('cache-control', 'no-cache').header('x-accel-buffering', 'no')
    return sendStream(reply, 'text/event-stream; charset=utf-8', admitted(ticket, sseEvents(speech, signal)), signal)
  })
}

/**
 * The language the text was spoken in, how sure, and why (`script`, `statistics`, `default`, `voice`,
 * `session`), so a client can see why a voice was chosen: `x-parla-language: en; confidence=0.93; reason=default`.
 * Text with several languages lists each once, in order.
 */
function languageHeaders(reply: FastifyReply, speech: PreparedSpeech): void {
  const languages = describeLanguages(speech.chunks.map((c) => c.languageDecision))
  if (languages) void reply.header('x-parla-language', languages)
}

/**
 * Waits for the first piece before sending headers, so a failure before any audio is a proper error status
 * rather than a 200 with an empty body; then streams the rest as it comes.
 */
export async function sendStream(reply: FastifyReply, contentType: string, body: AsyncGenerator<Uint8Array | string>, signal: AbortSignal) {
  const first = await body.next()
  async function* all() {
    try {
      if (!first.done) yield first.value
      yield* body
    } catch (err) {
      // The status is sent: cutting the connection is the only way left to tell the client the audio is
      // incomplete (a proper end would pass a truncated file for a whole one).
      if (!signal.aborted) reply.log.error({ err }, 'stream failed after its first bytes; connection cut')
      reply.raw.destroy()
    } finally {
      await body.return(undefined)
    }
  }
  return reply.type(contentType).send(Readable.from(all(), { objectMode: false }))
}
