import { Type, type Static } from 'typebox'
import type { FastifyInstance } from 'fastify'
import type { Deps } from '../../deps.js'
import { invalidField, SpeechError } from '../../errors.js'
import { plainTtsParams } from '../../services/tts/params.js'
import { nothingToSpeak } from '../../services/tts/service.js'
import { isSsml } from '../../text/index.js'
import { clientSignal } from '../client-signal.js'
import { admitStream, admitted } from '../admitted-stream.js'
import { admitHttp } from '../quota-admission.js'
import { meteredSpeech } from '../../services/account/metered-speech.js'
import { sendStream } from '../fish/tts.js'
import { instructionCues } from './instructions.js'
import { routeModel } from './model-routing.js'
import { encodedAudio } from '../../services/tts/encoded-audio.js'
import { speechEvents } from './speech-stream.js'
import type { VoicePicker } from './voices.js'

/** A string enum (one `enum` keyword, so a wrong value is reported as "must be one of: …"). */
const oneOf = <T extends string>(values: readonly T[], description: string) => Type.Unsafe<T>({ type: 'string', enum: [...values], description })

const SpeechBody = Type.Object(
  {
    model: Type.Optional(Type.String({ description: 'tts-1, tts-1-hd, gpt-4o-mini-tts, s1, s2-pro, an engine id (festival, flite, espeak-ng), or any string (default routing)' })),
    input: Type.String({ description: 'Text to speak; may contain s2-pro cues like [whispering], or be an SSML document (root <speak>).' }),
    voice: Type.Union([Type.String(), Type.Object({ id: Type.String() })], { description: 'OpenAI voice name (mapped, see docs/protocols.md), Parla voice model id or title, or {"id": ...}' }),
    instructions: Type.Optional(Type.String({ description: 'Delivery ("calm, slightly sad"): words naming expression tags become cues.' })),
    response_format: Type.Optional(oneOf(['mp3', 'opus', 'aac', 'flac', 'wav', 'pcm'] as const, 'Default mp3. pcm is 24 kHz signed 16-bit little-endian mono.')),
    speed: Type.Optional(Type.Number({ minimum: 0.25, maximum: 4, description: '0.25 to 4.0, default 1.' })),
    stream_format: Type.Optional(oneOf(['audio', 'sse'] as const, 'audio (bytes, default) or sse (speech.audio.delta events).')),
  },
  { additionalProperties: true },
)
type SpeechBody = Static<typeof SpeechBody>

const CONTENT_TYPES: Record<string, string> = { pcm: 'audio/pcm', mp3: 'audio/mpeg', opus: 'audio/ogg', aac: 'audio/aac', flac: 'audio/flac', wav: 'audio/wav' }
/** OpenAI's rate for every format (Opus carries 48 kHz, the only rate Ogg Opus decoders play natively). */
const OPENAI_RATE = 24_000

/** `POST /v1/audio/speech`: the OpenAI speech endpoint over Parla's TTS service. */
export async function speechRoutes(app: FastifyInstance, { deps, voices }: { deps: Deps; voices: VoicePicker }): Promise<void> {
  app.post<{ Body: SpeechBody }>('/v1/audio/speech', {
    schema: { summary: 'OpenAI-compatible text to speech, streamed as produced', tags: ['openai'], body: SpeechBody, produces: [...Object.values(CONTENT_TYPES), 'text/event-stream'] },
  }, async (request, reply) => {
    const body = request.body
    if (body.input.trim() === '') throw invalidField(['body', 'input'], "'input' is empty; send the text to speak", 'string_too_short')
    if (body.input.length > deps.config.maxTextLength) {
      throw invalidField(['body', 'input'], `'input' is ${body.input.length} characters; the limit is ${deps.config.maxTextLength}. Split it into several requests`, 'string_too_long')
    }
    const route = routeModel(body.model ?? 'tts-1', deps.speech.engines.ids)
    const voiceName = typeof body.voice === 'string' ? body.voice : body.voice.id
    if (voiceName.trim() === '') throw invalidField(['body', 'voice'], "'voice' is empty; send an OpenAI voice name such as alloy, or a Parla voice model id")
    const format = body.response_format ?? 'mp3'
    const cues = instructionCues(body.instructions, route.dialect)
    const params = plainTtsParams(withCues(body.input, cues), format, {
      dialect: route.dialect,
      referenceIds: [await voices.pick(voiceName, route, request.principal)],
      speed: body.speed ?? 1,
      latency: route.latency,
      sampleRate: OPENAI_RATE,
    })
    const signal = clientSignal(reply)
    const prepared = await deps.tts.prepare(params, request.principal, signal).catch((err: unknown) => {
      // The voice service names the Fish listing; this surface's clients fill pickers from its own.
      if (!(err instanceof SpeechError) || err.code !== 'reference_not_found') throw asInput(err)
      throw new SpeechError('reference_not_found', `Voice '${voiceName}' not found; use an OpenAI voice name such as alloy or nova, or a voice from GET /v1/audio/voices`, { cause: err })
    })
    // The same answer as the Fish routes for text with nothing to say, never a 200 with no audio in it.
    if (prepared.chunks.length === 0) throw asInput(nothingToSpeak())
    const speech = meteredSpeech(prepared, await admitHttp(deps, request, reply, { characters: body.input.length }))
    const ticket = await admitStream(deps, reply, 'openai', signal, body.input.length)
    if (body.stream_format === 'sse') {
      void reply.header('cache-control', 'no-cache').header('x-accel-buffering', 'no')
      return sendStream(reply, 'text/event-stream; charset=utf-8', onInput(admitted(ticket, speechEvents(speech, body.input, signal))), signal)
    }
    return sendStream(reply, speech.encoder.contentType, onInput(admitted(ticket, encodedAudio(speech, signal))), signal)
  })
}

/** The TTS service's complaints about the Fish `text` are about this surface's `input`: the 400 naming it. */
function asInput(err: unknown): unknown {
  const issue = err instanceof SpeechError ? err.issues[0] : undefined
  if (!(err instanceof SpeechError) || err.issues.length !== 1 || issue?.loc.join('.') !== 'body.text') return err
  return new SpeechError(err.code, err.message.replace(/^text /, "'input' "), { field: ['body', 'input'], type: issue.type, cause: err })
}

/** Rendering that found nothing the voice can say fails before the first byte, as a 400 on `input`. */
async function* onInput<T>(stream: AsyncGenerator<T>): AsyncGenerator<T> {
  try {
    yield* stream
  } catch (err) {
    throw asInput(err)
  }
}

/** Cues from `instructions` go before the words: inside an SSML document's root, so it stays a document. */
function withCues(input: string, cues: string): string {
  if (!cues) return input
  return isSsml(input) ? input.replace(/<speak(?:\s[^>]*)?>/, (root) => `${root}${cues} `) : `${cues} ${input}`
}
