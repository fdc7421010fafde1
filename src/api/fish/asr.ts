import { Type } from 'typebox'
import type { FastifyInstance } from 'fastify'
import type { Deps } from '../../deps.js'
import { clientSignal } from '../client-signal.js'
import { readAsrBody } from './asr-body.js'

const Segment = Type.Object({ text: Type.String(), start: Type.Number({ description: 'seconds' }), end: Type.Number({ description: 'seconds' }) })
const AsrResponse = Type.Object({
  text: Type.String({ description: 'the whole transcript, sentence-cased' }),
  duration: Type.Number({ description: 'audio duration in seconds' }),
  segments: Type.Array(Segment, { description: 'phrases split at pauses; empty when ignore_timestamps is true (the default)' }),
  language: Type.String({ description: 'the language the audio was transcribed as' }),
})

/** Multipart and MessagePack bodies carry raw bytes; allow the spec's 20 MB of audio plus the framing. */
const FRAMING_BYTES = 64 * 1024

/** `POST /v1/asr`: one audio file to text, duration and timed segments. */
export async function asrRoutes(app: FastifyInstance, { deps }: { deps: Deps }): Promise<void> {
  const maxBytes = deps.config.asrMaxBytes
  app.post(
    '/v1/asr',
    {
      bodyLimit: maxBytes + FRAMING_BYTES,
      schema: {
        summary: 'Speech to text',
        description:
          'Send one audio file (WAV, MP3, Ogg Opus/Vorbis, FLAC, M4A, WebM) of 1 s to 60 min and at most 20 MB, as multipart ' +
          '(`audio` file, `language`, `ignore_timestamps` as "true"/"false") or MessagePack (`audio` as bin). Longer recordings: ' +
          'split them, transcribe each piece, and add each piece\'s start offset to its segments (the `parla transcribe` CLI does this).',
        tags: ['asr'],
        consumes: ['multipart/form-data', 'application/msgpack', 'application/json'],
        response: { 200: AsrResponse },
      },
    },
    async (request, reply) => {
      const input = await readAsrBody(request, maxBytes)
      return deps.asr.transcribe(
        { audio: input.audio, filename: input.filename, ...(input.language !== undefined && { language: input.language }), ...(input.ignoreTimestamps !== undefined && { ignoreTimestamps: input.ignoreTimestamps }) },
        clientSignal(reply),
      )
    },
  )
}
