import type { FastifyInstance } from 'fastify'
import type { Deps } from '../../deps.js'
import { SpeechError } from '../../errors.js'
import { clientSignal } from '../client-signal.js'
import { admitHttp } from '../quota-admission.js'
import { sendStream } from '../fish/tts.js'
import { formatTranscript } from './transcript-formats.js'
import { readTranscriptionBody } from './transcription-body.js'

/** Multipart framing on top of the audio limit. */
const FRAMING_BYTES = 64 * 1024

/** `POST /v1/audio/transcriptions`: the OpenAI transcription endpoint over Parla's ASR service. */
export async function transcriptionRoutes(app: FastifyInstance, { deps }: { deps: Deps }): Promise<void> {
  const maxBytes = deps.config.asrMaxBytes
  app.post('/v1/audio/transcriptions', {
    bodyLimit: maxBytes + FRAMING_BYTES,
    schema: {
      summary: 'OpenAI-compatible speech to text',
      description: 'multipart: file, model (any), language, prompt (accepted, unused: the recogniser takes no prompt), temperature (0-1, unused), ' +
        'response_format json|text|srt|vtt|verbose_json, timestamp_granularities[] word|segment (verbose_json), stream (SSE transcript.text.delta/done).',
      tags: ['openai'],
      consumes: ['multipart/form-data'],
    },
  }, async (request, reply) => {
    const input = await readTranscriptionBody(request, maxBytes)
    const ticket = await admitHttp(deps, request, reply, { transcribes: true })
    const signal = clientSignal(reply)
    const result = await deps.asr.transcribe({
      audio: input.audio,
      filename: input.filename,
      ...(input.language !== undefined && { language: input.language }),
      ignoreTimestamps: false,
      words: input.words,
    }, signal).catch((err: unknown) => {
      throw fileField(err)
    })
    await ticket.record({ audioSeconds: result.duration })
    if (input.stream) {
      // Recognition finishes per utterance, then the transcript goes out phrase by phrase.
      async function* events() {
        const pieces = result.segments.length > 0 ? result.segments.map((s, i) => (i === 0 ? s.text : ` ${s.text}`)) : [result.text]
        for (const delta of pieces) yield `data: ${JSON.stringify({ type: 'transcript.text.delta', delta })}\n\n`
        const usage = { type: 'duration', seconds: Math.ceil(result.duration) }
        yield `data: ${JSON.stringify({ type: 'transcript.text.done', text: result.text, usage })}\n\n`
      }
      void reply.header('cache-control', 'no-cache')
      return sendStream(reply, 'text/event-stream; charset=utf-8', events(), signal)
    }
    const { type, body } = formatTranscript(result, input)
    return reply.type(type).send(body)
  })
}

/** The ASR service names the upload `audio` (the Fish field); here the field is `file`. */
function fileField(err: unknown): unknown {
  if (!(err instanceof SpeechError) || !err.issues.some((i) => i.loc[1] === 'audio')) return err
  const issues = err.issues.map((i) => (i.loc[1] === 'audio' ? { ...i, loc: ['body', 'file', ...i.loc.slice(2)] } : i))
  return new SpeechError(err.code, err.message.replace(/^body\.audio/, 'body.file'), { issues, cause: err })
}
