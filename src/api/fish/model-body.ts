import type { FastifyRequest } from 'fastify'
import { SpeechError } from '../../errors.js'
import type { Upload } from '../../store/model-types.js'

/**
 * A `/model` body in one of two shapes. `typed`: JSON or MessagePack, values keep their types. `text`:
 * multipart or url-encoded, every field is a list of strings (repeated fields in order) and files are kept
 * apart. `model-fields.ts` turns either into the service's input.
 */
export type RawBody =
  | { readonly kind: 'typed'; readonly values: Readonly<Record<string, unknown>> }
  | {
      readonly kind: 'text'
      readonly values: ReadonlyMap<string, string[]>
      readonly files: ReadonlyMap<string, Upload[]>
    }

export interface BodyLimits {
  readonly maxUploadBytes: number
  readonly maxUploadFiles: number
}

const FILE_FIELDS = new Set(['voices', 'cover_image'])

export async function readBody(request: FastifyRequest, limits: BodyLimits): Promise<RawBody> {
  if (request.isMultipart()) return readMultipart(request, limits)
  const body = request.body
  const type = (request.headers['content-type'] ?? '').toLowerCase()
  if (type.startsWith('application/x-www-form-urlencoded')) {
    const values = new Map<string, string[]>()
    for (const [k, v] of Object.entries((body ?? {}) as Record<string, string | string[]>)) values.set(k, [v].flat())
    return { kind: 'text', values, files: new Map() }
  }
  if (body === undefined || body === null) return { kind: 'typed', values: {} }
  if (typeof body !== 'object' || Array.isArray(body) || ArrayBuffer.isView(body)) {
    const msg = `The body must be an object with the model's fields, not ${describe(body)}`
    throw new SpeechError('validation_failed', 'body must be an object', {
      issues: [{ loc: ['body'], type: 'object_type', msg, in: 'body' }],
    })
  }
  return { kind: 'typed', values: body as Record<string, unknown> }
}

const describe = (v: unknown) =>
  Array.isArray(v) ? 'an array' : ArrayBuffer.isView(v) ? 'binary data' : `a ${typeof v}`

async function readMultipart(request: FastifyRequest, limits: BodyLimits): Promise<RawBody> {
  const values = new Map<string, string[]>()
  const files = new Map<string, Upload[]>()
  try {
    for await (const part of request.parts()) {
      if (part.type === 'file') {
        const buf = await part.toBuffer()
        // Files under other names are read (the stream must be drained) and ignored, like unknown fields.
        if (!FILE_FIELDS.has(part.fieldname)) continue
        const bytes = new Uint8Array(buf.buffer, buf.byteOffset, buf.length)
        files.set(part.fieldname, [...(files.get(part.fieldname) ?? []), { filename: part.filename ?? '', bytes, mimetype: part.mimetype }])
      } else {
        const value = typeof part.value === 'string' ? part.value : JSON.stringify(part.value)
        values.set(part.fieldname, [...(values.get(part.fieldname) ?? []), value])
      }
    }
  } catch (err) {
    throw multipartError(err, limits)
  }
  return { kind: 'text', values, files }
}

/** busboy and @fastify/multipart failures → 413 for limits, 400 for anything malformed. */
export function multipartError(err: unknown, limits: BodyLimits): SpeechError {
  if (err instanceof SpeechError) return err
  const e = err as { code?: string; message?: string; part?: { filename?: string } }
  switch (e.code) {
    case 'FST_REQ_FILE_TOO_LARGE':
      return tooLarge(e.part?.filename ? `'${e.part.filename}'` : 'A file', limits)
    case 'FST_FILES_LIMIT':
      return tooManyFiles(limits)
    case 'FST_PARTS_LIMIT':
    case 'FST_FIELDS_LIMIT':
      return new SpeechError('payload_too_large', 'Too many multipart fields; send each field once (repeat only voices, texts and tags)')
    case 'FST_PROTO_VIOLATION':
      return new SpeechError(
        'bad_request',
        'A multipart field is named like an Object.prototype property (e.g. __proto__ or constructor); rename it',
      )
    case 'FST_INVALID_JSON_FIELD_ERROR':
      return new SpeechError('bad_request', 'A multipart field declared as application/json is not valid JSON')
  }
  const detail = (e.message ?? 'unreadable').replace(/\.$/, '')
  const hint = 'send multipart/form-data with the boundary from the Content-Type header'
  return new SpeechError('bad_request', `Multipart body is malformed: ${detail}; ${hint}`)
}

export const tooLarge = (what: string, limits: BodyLimits) =>
  new SpeechError('payload_too_large', `${what} is larger than the ${limits.maxUploadBytes}-byte upload limit; send a smaller file`)

export const tooManyFiles = (limits: BodyLimits) =>
  new SpeechError(
    'payload_too_large',
    `Too many files: send at most ${limits.maxUploadFiles} voice samples and one cover_image per request`,
  )
