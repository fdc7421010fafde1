/**
 * The one internal error type. Everything Parla throws on purpose is a `SpeechError` with a code from
 * `ERROR_CODES`; the code decides the HTTP status. Only `src/api/error-wire.ts` turns it into bytes.
 */
export const ERROR_CODES = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  reference_not_found: 404,
  method_not_allowed: 405,
  /** The request (headers or body) did not arrive in time. */
  request_timeout: 408,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  /**
   * The request's content passes the schema but cannot be used (ASR audio that does not decode or is too short,
   * blank TTS text, text with nothing to speak): a 422 naming the field, like `validation_failed`.
   */
  unusable_input: 422,
  /** An `Expect` header the server cannot meet (anything but `100-continue`). */
  expectation_failed: 417,
  /** A field is wrong; carries `issues` that become the 422 array. */
  validation_failed: 422,
  /** The request is well-formed but cannot be served in the resource's current state. */
  not_ready: 409,
  /** A WebSocket route reached without the upgrade. */
  upgrade_required: 426,
  rate_limited: 429,
  /** The request line or headers are larger than the server reads. */
  headers_too_large: 431,
  internal_error: 500,
  engine_failed: 502,
  engine_busy: 503,
  unavailable: 503,
} as const satisfies Record<string, number>

export type ErrorCode = keyof typeof ERROR_CODES

/** One entry of the Fish 422 array: `loc` names the field, e.g. `['body', 'format']`. */
export interface ValidationIssue {
  readonly loc: readonly string[]
  readonly type: string
  readonly msg: string
  readonly ctx?: string
  readonly in?: 'path' | 'query' | 'header' | 'cookie' | 'body'
}

export interface SpeechErrorOptions {
  readonly issues?: readonly ValidationIssue[]
  /** The field a 422 is about, e.g. `['body', 'text']`; see the constructor. */
  readonly field?: readonly string[]
  /** The validation type of a 422's issue, e.g. `string_too_short`; see the constructor. */
  readonly type?: string
  readonly retryAfterSec?: number
}

export class SpeechError extends Error {
  override readonly name = 'SpeechError'
  readonly code: ErrorCode
  readonly status: number
  readonly issues: readonly ValidationIssue[]
  /** Seconds after which the same request may succeed (a busy server, a rate limit): the `Retry-After` header. */
  readonly retryAfterSec: number | undefined

  /**
   * A 422 always says which field is wrong: `issues`, or else one issue on `field` (default `['body']`, the whole
   * body) of type `type` (default `value_error`) with the message, so every surface's mapper finds it there.
   */
  constructor(code: ErrorCode, message: string, options?: ErrorOptions & SpeechErrorOptions) {
    super(message, options)
    this.code = code
    this.status = ERROR_CODES[code]
    this.issues = options?.issues ?? (this.status === 422 ? [fieldIssue(options?.field ?? ['body'], message, options?.type)] : [])
    this.retryAfterSec = options?.retryAfterSec
  }
}

/**
 * A fault of the server, whose message is logged but never sent. A 5xx that asks the client to retry later
 * (a full server's 503) is no fault: its message says why and when, and goes out.
 */
export function isServerFault(e: SpeechError): boolean {
  return e.status >= 500 && e.retryAfterSec === undefined
}

/** One 422 entry. `loc` starts with where the field lives (`body`, `query`, `path`, `header`). */
function fieldIssue(loc: readonly string[], msg: string, type = 'value_error'): ValidationIssue {
  const where = loc[0]
  return {
    loc,
    type,
    msg,
    ...(where === 'body' || where === 'query' || where === 'path' || where === 'header' ? { in: where } : {}),
  }
}

/** A 422 for one field. `loc` starts with where the field lives (`body`, `query`, `path`). */
export function invalidField(
  loc: readonly string[],
  msg: string,
  type = 'value_error',
): SpeechError {
  return new SpeechError('validation_failed', `${loc.join('.')}: ${msg}`, { issues: [fieldIssue(loc, msg, type)] })
}

export function toSpeechError(err: unknown): SpeechError {
  if (err instanceof SpeechError) return err
  return new SpeechError('internal_error', 'Internal server error', { cause: err })
}

/** True when `err` is what an aborted `AbortSignal` throws, so callers can stay quiet about it. */
export function isAbortError(err: unknown): boolean {
  return err instanceof Error && (err.name === 'AbortError' || (err as { code?: string }).code === 'ABORT_ERR')
}
