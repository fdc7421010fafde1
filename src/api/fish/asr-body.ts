import type { FastifyRequest } from 'fastify'
import { invalidField, SpeechError } from '../../errors.js'
import { readOnlyFilePart } from '../read-bytes.js'
import { multipartError } from './model-body.js'

export interface AsrInput {
  readonly audio: Uint8Array
  readonly filename: string
  readonly language?: string
  readonly ignoreTimestamps?: boolean
}

/**
 * The `/v1/asr` body: multipart (file field `audio`, the npm `fish-audio` client), MessagePack (`audio` as
 * bin, the Python and `fish-audio-sdk` clients) or JSON (`audio` as base64). One file per request.
 */
export async function readAsrBody(request: FastifyRequest, maxBytes: number): Promise<AsrInput> {
  const fields: Record<string, unknown> = {}
  if (request.isMultipart()) {
    let files = 0
    try {
      for await (const part of request.parts({ limits: { fileSize: maxBytes, files: 4 } })) {
        if (part.type === 'file') {
          if (part.fieldname !== 'audio') {
            // Files under other names are drained (the parser needs the stream read) and ignored.
            for await (const _ of part.file) continue
            continue
          }
          if (++files > 1) throw oneFile()
          fields.audio = await readOnlyFilePart(part, maxBytes)
          fields.filename = part.filename ?? ''
        } else fields[part.fieldname] = part.value
      }
    } catch (err) {
      const e = err as { code?: string }
      if (e.code === 'FST_REQ_FILE_TOO_LARGE') throw tooLarge(maxBytes)
      if (e.code === 'FST_FILES_LIMIT') throw oneFile()
      throw multipartError(err, { maxUploadBytes: maxBytes, maxUploadFiles: 1 })
    }
  } else {
    // No body at all is a request without audio, not a malformed one.
    const body = request.body ?? {}
    if (typeof body !== 'object' || body === null || Array.isArray(body) || ArrayBuffer.isView(body)) {
      const msg = 'the body must be a map with an "audio" field (MessagePack bin, or base64 in JSON)'
      throw invalidField(['body'], msg, 'object_type')
    }
    Object.assign(fields, body)
    if (typeof fields.audio === 'string') fields.audio = new Uint8Array(Buffer.from(fields.audio, 'base64'))
  }
  const audio = fields.audio
  if (audio === undefined || audio === null) {
    throw invalidField(['body', 'audio'], "Field required: send the audio file as 'audio'", 'missing')
  }
  if (!(audio instanceof Uint8Array)) {
    const msg = 'audio must be binary: a file part, MessagePack bin, or a base64 string in JSON'
    throw invalidField(['body', 'audio'], msg, 'bytes_type')
  }
  if (audio.length > maxBytes) throw tooLarge(maxBytes)
  return {
    audio,
    filename: typeof fields.filename === 'string' ? fields.filename : '',
    ...optionalLanguage(fields.language),
    ...optionalBoolean(fields.ignore_timestamps),
  }
}

const oneFile = () =>
  invalidField(['body', 'audio'],
    'send one audio file per request; split longer recordings and send them one by one')

export const tooLarge = (maxBytes: number) =>
  new SpeechError('payload_too_large',
    `audio is larger than ${maxBytes} bytes (the limit is ${Math.round(maxBytes / 1e6)} MB); ` +
      'split the recording and send the parts one by one')

function optionalLanguage(value: unknown): { language?: string } {
  if (value === undefined || value === null || value === '') return {}
  if (typeof value !== 'string') {
    throw invalidField(['body', 'language'], 'language must be a language code string such as "en"', 'string_type')
  }
  return { language: value.trim() }
}

function optionalBoolean(value: unknown): { ignoreTimestamps?: boolean } {
  if (value === undefined || value === null || value === '') return {}
  if (typeof value === 'boolean') return { ignoreTimestamps: value }
  if (value === 'true' || value === 'false') return { ignoreTimestamps: value === 'true' }
  const msg = 'ignore_timestamps must be a boolean, or the string "true" or "false"'
  throw invalidField(['body', 'ignore_timestamps'], msg, 'bool_type')
}
