import type { FastifyBaseLogger, FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { isAbortError, isServerFault, SpeechError, toSpeechError, type ValidationIssue } from '../errors.js'

/**
 * The only module that knows how errors look on the Fish surface: 422 is an array of `{loc, type, msg, ctx?, in?}`;
 * every other error is exactly `{status, message}` (the legacy Python SDK builds an exception from `**body`, so an
 * extra key breaks it). 5xx messages are never leaked.
 */
const PARTS: Record<string, ValidationIssue['in']> = { body: 'body', querystring: 'query', params: 'path', headers: 'header' }
const LOC_ROOT: Record<string, string> = { body: 'body', querystring: 'query', params: 'path', headers: 'header' }

interface AjvError {
  keyword: string
  instancePath: string
  message?: string
  params: Record<string, unknown>
}

/** Ajv errors → Fish 422 entries naming the field, e.g. `{loc: ['body', 'prosody', 'speed'], ...}`. */
export function validationIssues(context: string, errors: readonly AjvError[]): ValidationIssue[] {
  const seen = new Set<string>()
  const issues: ValidationIssue[] = []
  // A union of literals fails one `const` per branch; its issue lists them all, as an enum's does.
  const constants = new Map<string, unknown[]>()
  for (const e of errors) {
    if (e.keyword === 'const') constants.set(e.instancePath, [...constants.get(e.instancePath) ?? [], e.params.allowedValue])
  }
  for (const e of errors) {
    // anyOf/oneOf wrappers repeat what their branches said.
    if (e.keyword === 'anyOf' || e.keyword === 'oneOf' || e.keyword === 'if') continue
    const path = e.instancePath.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    if (e.keyword === 'required') path.push(String(e.params.missingProperty))
    if (e.keyword === 'additionalProperties') path.push(String(e.params.additionalProperty))
    const loc = [LOC_ROOT[context] ?? context, ...path]
    const key = loc.join('\u0000')
    if (seen.has(key)) continue
    seen.add(key)
    const allowed = e.keyword === 'const' ? constants.get(e.instancePath) : undefined
    const msg = allowed ? oneOf(path.at(-1), allowed) : ajvMessage(e, path.at(-1))
    issues.push({ loc, type: ajvType(e), msg, ...(PARTS[context] ? { in: PARTS[context] } : {}) })
  }
  return issues
}

function ajvType(e: AjvError): string {
  if (e.keyword === 'required') return 'missing'
  if (e.keyword === 'enum' || e.keyword === 'const') return 'enum'
  if (e.keyword === 'type') return `${String(e.params.type)}_type`
  if (e.keyword === 'minimum' || e.keyword === 'exclusiveMinimum') return 'greater_than_equal'
  if (e.keyword === 'maximum' || e.keyword === 'exclusiveMaximum') return 'less_than_equal'
  if (e.keyword === 'maxLength') return 'string_too_long'
  if (e.keyword === 'minLength') return 'string_too_short'
  return e.keyword
}

const fieldName = (field: string | undefined) => field ? `'${field}'` : 'value'

const oneOf = (field: string | undefined, values: readonly unknown[]) =>
  `${fieldName(field)} must be one of: ${values.map((v) => JSON.stringify(v)).join(', ')}`

function ajvMessage(e: AjvError, field: string | undefined): string {
  const name = fieldName(field)
  switch (e.keyword) {
    case 'required':
      return `Field required: add '${String(e.params.missingProperty)}'`
    case 'enum':
      return oneOf(field, e.params.allowedValues as unknown[])
    case 'type':
      return `${name} must be of type ${String(e.params.type)}`
    case 'minimum':
    case 'maximum':
      return `${name} ${e.message ?? 'is out of range'}`
    default:
      return `${name} ${e.message ?? 'is invalid'}`
  }
}

const invalidJson = (err: Error): SpeechError => new SpeechError('bad_request', `Body is not valid JSON: ${err.message}`)
/** Fastify's own message for this says no more than its code ("Body is not valid JSON but content-type is set to…"). */
const INVALID_JSON_BODY = 'Body is not valid JSON though Content-Type is application/json; send one JSON object'

/** Fastify and Ajv errors as the one internal error; each surface's mapper starts here. */
export function fromFastifyError(err: FastifyError): SpeechError {
  if (err instanceof SpeechError) return err
  if (err.validation) {
    return new SpeechError('validation_failed', err.message, {
      issues: validationIssues(err.validationContext ?? 'body', err.validation as unknown as AjvError[]),
    })
  }
  const status = err.statusCode ?? 500
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new SpeechError('payload_too_large', 'Request body is too large; send a smaller body')
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new SpeechError('unsupported_media_type', `Unsupported Content-Type; send application/json, application/msgpack, multipart/form-data or application/x-www-form-urlencoded`)
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new SpeechError('bad_request', 'Body is empty but Content-Type is application/json; send a JSON object')
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new SpeechError('bad_request', INVALID_JSON_BODY)
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return invalidJson(err)
    case 'FST_REQ_FILE_TOO_LARGE':
    case 'FST_FILES_LIMIT':
    case 'FST_PARTS_LIMIT':
    case 'FST_FIELDS_LIMIT':
      return new SpeechError('payload_too_large', err.message)
    case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
    case 'FST_NO_FORM_DATA':
      return new SpeechError('bad_request', `Multipart body is malformed: ${err.message}`)
  }
  if (err instanceof SyntaxError && status === 400) return invalidJson(err)
  if (status >= 400 && status < 500) {
    const code = ({ 400: 'bad_request', 401: 'unauthorized', 403: 'forbidden', 404: 'not_found', 405: 'method_not_allowed', 413: 'payload_too_large', 415: 'unsupported_media_type', 429: 'rate_limited' } as const)[status] ?? 'bad_request'
    return new SpeechError(code, err.message || 'Bad request')
  }
  return toSpeechError(err)
}

/**
 * The 422 array for every 422, whichever layer raised it (the spec's one shape for it; `SpeechError` gives each
 * 422 its field), else `{status, message}`.
 */
export function fishErrorBody(e: SpeechError): unknown {
  if (e.status === 422) return e.issues.length > 0 ? e.issues : [{ loc: ['body'], type: e.code, msg: e.message, in: 'body' }]
  return { status: e.status, message: isServerFault(e) ? 'Internal server error' : e.message }
}

/** `Retry-After` in whole seconds for an error that says when to come back (any surface's HTTP mapper). */
export function setRetryAfter(reply: FastifyReply, e: SpeechError): void {
  if (e.retryAfterSec !== undefined) void reply.header('retry-after', String(Math.max(1, Math.ceil(e.retryAfterSec))))
}

/**
 * Work stopped because its client went away (waiting for an admission place, a voice in training, the first
 * audio): nobody reads an answer, and it is no server fault. Logged at info and counted as 499, nginx's
 * "client closed request". True when it handled `err`.
 */
export function clientWentAway(err: unknown, request: FastifyRequest, reply: FastifyReply): boolean {
  if (!isAbortError(err) || !(reply.raw.destroyed || request.raw.destroyed)) return false
  request.log.info('client went away before the response')
  void reply.code(499).send()
  return true
}

export function fishErrorHandler(err: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  if (clientWentAway(err, request, reply)) return
  const e = fromFastifyError(err)
  if (isServerFault(e)) request.log.error({ err: e.cause ?? err }, 'request failed')
  else request.log.info({ code: e.code, msg: e.message }, 'request rejected')
  setRetryAfter(reply, e)
  void reply.code(e.status).type('application/json; charset=utf-8').send(fishErrorBody(e))
}

/** The `message` of a live-socket `finish {reason: "error"}` frame: the same text an HTTP error would carry. */
export function fishLiveErrorMessage(e: SpeechError): string {
  if (isServerFault(e)) return 'Internal server error'
  if (e.code === 'validation_failed' && e.issues.length > 0) return e.issues.map((i) => `${i.loc.slice(1).join('.')}: ${i.msg}`).join('; ')
  return e.message
}

/** What the connection-level answers below need to know to say what to fix. */
export interface ReceiveLimits {
  readonly headersTimeoutSec: number
  readonly bodyTimeoutSec: number
  readonly maxHeaderBytes: number
}

type ParsedSocket = Socket & { parser?: { incoming?: IncomingMessage | null } | null; _httpMessage?: ServerResponse | null }

/** Node's client errors (garbage instead of HTTP, oversized headers, receive timeouts) as SpeechErrors. */
function fromClientError(err: NodeJS.ErrnoException & { reason?: string }, socket: ParsedSocket, limits: ReceiveLimits): SpeechError {
  if (err.code === 'HPE_HEADER_OVERFLOW') {
    return new SpeechError('headers_too_large', `The request line and headers are over ${limits.maxHeaderBytes} bytes; send a shorter URL and fewer or smaller headers`)
  }
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    // Node uses one code for both limits; headers are complete once the parser holds a request.
    const incoming = socket.parser?.incoming
    return incoming && !incoming.complete
      ? new SpeechError('request_timeout', `The request body did not arrive within ${limits.bodyTimeoutSec} s; send it faster or in smaller requests`)
      : new SpeechError('request_timeout', `The request headers did not arrive within ${limits.headersTimeoutSec} s; send the whole request head at once`)
  }
  const reason = typeof err.reason === 'string' ? ` (${err.reason})` : ''
  return new SpeechError('bad_request', `The request is not valid HTTP/1.1${reason}; send 'METHOD /path HTTP/1.1', headers as 'Name: value', and a body matching its Content-Length or chunked framing`)
}

/** A whole HTTP/1.1 error response written straight to a socket no route will answer; it closes the connection. */
function rawErrorResponse(e: SpeechError): string {
  const body = JSON.stringify(fishErrorBody(e))
  return `HTTP/1.1 ${e.status} ${STATUS_CODES[e.status] ?? 'Error'}\r\nContent-Type: application/json; charset=utf-8\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
}

/**
 * Fastify's `clientErrorHandler`: errors Node's HTTP parser and receive timers raise before any route runs,
 * answered in the API's shape. A response already under way on the socket cannot be followed by another.
 */
export function fishClientErrorHandler(limits: ReceiveLimits) {
  return function (this: { log: FastifyBaseLogger }, err: NodeJS.ErrnoException, socket: ParsedSocket): void {
    if (err.code === 'ECONNRESET' || socket.destroyed) return
    const e = fromClientError(err, socket, limits)
    this.log.info({ code: e.code, msg: e.message, parser: err.code }, 'connection rejected')
    // A response under way cannot be followed by another. A request still receiving its body with no
    // response object was answered already (e.g. a 401 before its body was read).
    const incoming = socket.parser?.incoming
    const answered = socket._httpMessage ? socket._httpMessage.headersSent : Boolean(incoming && !incoming.complete)
    if (socket.writable && !answered) socket.end(rawErrorResponse(e))
    // end() flushes the answer; a client that never reads it is cut off all the same.
    setTimeout(() => socket.destroy(), 1000).unref()
  }
}

/** Node's `checkExpectation` event: an `Expect` other than `100-continue` is a 417 that says why. */
export function fishExpectationFailed(req: IncomingMessage, res: ServerResponse): void {
  const e = new SpeechError('expectation_failed', `'Expect: ${(req.headers.expect ?? '').slice(0, 100)}' cannot be met; the only supported expectation is 'Expect: 100-continue' (or send no Expect header)`)
  const body = JSON.stringify(fishErrorBody(e))
  res.shouldKeepAlive = false
  res.writeHead(e.status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), connection: 'close' })
  res.end(body)
}
