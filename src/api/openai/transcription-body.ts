import type { FastifyRequest } from 'fastify'
import { invalidField, SpeechError } from '../../errors.js'
import { readOnlyFilePart } from '../read-bytes.js'
import { multipartError } from '../fish/model-body.js'

export const RESPONSE_FORMATS = ['json', 'text', 'srt', 'vtt', 'verbose_json'] as const
export type TranscriptFormat = (typeof RESPONSE_FORMATS)[number]

export interface TranscriptionInput {
  readonly audio: Uint8Array
  readonly filename: string
  readonly model: string
  readonly language?: string
  readonly format: TranscriptFormat
  readonly words: boolean
  readonly segments: boolean
  readonly stream: boolean
}

/**
 * The field names clients use for the granularity array: the `[]` form (openai-python, curl), the bare
 * name (repeated or comma-separated), and indexed forms (`[0]`, `.0`) some form encoders write.
 */
const GRANULARITY_FIELD = /^timestamp_granularities(?:\[\d*\]|\.\d+)?$/

/** The multipart body of `POST /v1/audio/transcriptions`: one `file`, and OpenAI's form fields. */
export async function readTranscriptionBody(request: FastifyRequest, maxBytes: number): Promise<TranscriptionInput> {
  if (!request.isMultipart()) {
    throw new SpeechError('unsupported_media_type', "Send multipart/form-data with the audio in the field 'file' (as the OpenAI SDKs do)")
  }
  const fields: Record<string, string> = {}
  const granularities: string[] = []
  let audio: Uint8Array | undefined
  let filename = ''
  try {
    for await (const part of request.parts({ limits: { fileSize: maxBytes, files: 2 } })) {
      if (part.type === 'file') {
        if (part.fieldname !== 'file' || audio) {
          for await (const _ of part.file) continue
          if (part.fieldname === 'file') throw invalidField(['body', 'file'], 'send one audio file per request')
          continue
        }
        audio = await readOnlyFilePart(part, maxBytes)
        filename = part.filename ?? ''
      } else if (GRANULARITY_FIELD.test(part.fieldname)) {
        granularities.push(...String(part.value).split(',').map((g) => g.trim()).filter(Boolean))
      } else fields[part.fieldname] = String(part.value)
    }
  } catch (err) {
    if ((err as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') {
      throw new SpeechError('payload_too_large', `'file' is larger than ${maxBytes} bytes; split the recording and send the parts one by one`)
    }
    throw multipartError(err, { maxUploadBytes: maxBytes, maxUploadFiles: 1 })
  }
  if (!audio) throw invalidField(['body', 'file'], "Field required: send the audio file in the field 'file'", 'missing')
  const format = (fields.response_format?.trim() || 'json') as TranscriptFormat
  if (!RESPONSE_FORMATS.includes(format)) throw invalidField(['body', 'response_format'], `'response_format' must be one of: ${RESPONSE_FORMATS.join(', ')}`, 'enum')
  for (const g of granularities) {
    if (g !== 'word' && g !== 'segment') throw invalidField(['body', 'timestamp_granularities[]'], `'${g}' is not a timestamp granularity; use word and/or segment`, 'enum')
  }
  if (granularities.length > 0 && format !== 'verbose_json') {
    throw invalidField(['body', 'timestamp_granularities[]'], "timestamp_granularities[] needs response_format 'verbose_json'")
  }
  if (fields.temperature !== undefined && fields.temperature !== '') {
    const t = Number(fields.temperature)
    if (!Number.isFinite(t) || t < 0 || t > 1) throw invalidField(['body', 'temperature'], "'temperature' must be a number from 0 to 1")
  }
  const stream = (fields.stream ?? '').trim().toLowerCase()
  if (stream !== '' && stream !== 'true' && stream !== 'false') throw invalidField(['body', 'stream'], "'stream' must be true or false")
  const language = fields.language?.trim()
  return {
    audio,
    filename,
    model: fields.model ?? 'whisper-1',
    ...(language && { language }),
    format,
    words: granularities.includes('word'),
    // Without the field OpenAI returns segments in verbose_json.
    segments: granularities.length === 0 || granularities.includes('segment'),
    stream: stream === 'true',
  }
}
