import { Type } from 'typebox'
import type { FastifyInstance } from 'fastify'
import type { Deps } from '../../deps.js'
import { SpeechError } from '../../errors.js'
import { clientSignal } from '../client-signal.js'
import { admitHttp } from '../quota-admission.js'
import { fishErrorHandler } from '../error-wire.js'
import { readAsrBody, tooLarge } from './asr-body.js'

const Segment = Type.Object({
  text: Type.String(),
  start: Type.Number({ description: 'seconds' }),
  end: Type.Number({ description: 'seconds' }),
})
const AsrResponse = Type.Object({
  text: Type.String({ description: 'the whole transcript, sentence-cased' }),
  duration: Type.Number({ description: 'audio duration in seconds' }),
  segments: Type.Array(Segment, {
    description: 'phrases split at pauses; empty when ignore_timestamps is true (the default)',
  }),
  language: Type.String({ description: 'the language the audio was transcribed as' }),
})

/**
 * Multipart and MessagePack bodies carry raw bytes, JSON carries base64 (4/3 as long): the body may hold the
 * spec's 20 MB of audio in either, plus framing. The handler then checks the audio itself against 20 MB.
 */
const FRAMING_BYTES = 64 * 1024
const bodyLimitFor = (maxBytes: number) => Math.ceil((maxBytes * 4) / 3) + FRAMING_BYTES

/** Bodies this route reads; anything else (text, forms, raw audio) is a 415 before the body is read. */
const ASR_TYPES = new Set([
  'multipart/form-data', 'application/json',
  'application/msgpack', 'application/x-msgpack', 'application/vnd.msgpack',
])

const unsupportedType = (type: string) =>
  new SpeechError('unsupported_media_type',
    `Content-Type '${type}' is not accepted by /v1/asr; send multipart/form-data with the file in the field ` +
      `'audio', or application/msgpack with {audio: <bin>}`)

/** `POST /v1/asr`: one audio file to text, duration and timed segments. */
export async function asrRoutes(app: FastifyInstance, { deps }: { deps: Deps }): Promise<void> {
  const maxBytes = deps.config.asrMaxBytes
  app.post(
    '/v1/asr',
    {
      bodyLimit: bodyLimitFor(maxBytes),
      onRequest: async (request) => {
        const type = request.headers['content-type']?.split(';')[0]?.trim().toLowerCase()
        if (type && !ASR_TYPES.has(type)) throw unsupportedType(type)
      },
      // A MessagePack or JSON body over the limit says what the limit is, like an oversized multipart file.
      errorHandler: (err, request, reply) => {
        const e = err.code === 'FST_ERR_CTP_BODY_TOO_LARGE' ? (tooLarge(maxBytes) as unknown as typeof err) : err
        fishErrorHandler(e, request, reply)
      },
      schema: {
        summary: 'Speech to text',
        description:
          'Send one audio file (WAV, MP3, Ogg Opus/Vorbis, FLAC, M4A, WebM) of 1 s to 60 min and at most 20 MB, ' +
          'as multipart (`audio` file, `language`, `ignore_timestamps` as "true"/"false") or MessagePack (`audio` ' +
          'as bin). `duration` and segment times are in seconds. Longer recordings: split them, transcribe each ' +
          'piece, and add each piece\'s start offset to its segments (the `parla transcribe` CLI does this).',
        tags: ['asr'],
        consumes: ['multipart/form-data', 'application/msgpack', 'application/json'],
        response: { 200: AsrResponse },
      },
    },
    async (request, reply) => {
      const input = await readAsrBody(request, maxBytes)
      const ticket = await admitHttp(deps, request, reply, { transcribes: true })
      const result = await deps.asr.transcribe({
        audio: input.audio,
        filename: input.filename,
        ...(input.language !== undefined && { language: input.language }),
        ...(input.ignoreTimestamps !== undefined && { ignoreTimestamps: input.ignoreTimestamps }),
      }, clientSignal(reply))
      await ticket.record({ audioSeconds: result.duration })
      return result
    },
  )
}
