import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { isServerFault, type SpeechError } from '../errors.js'
import { clientWentAway, fromFastifyError, setRetryAfter } from './error-wire.js'

/**
 * The OpenAI surface's error wire: `{"error": {"message", "type", "param", "code"}}` with OpenAI's statuses.
 * A field error is a 400 naming the field in `param` (OpenAI has no 422). 5xx messages are never leaked.
 */
export interface OpenAiErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null }
}

const TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'invalid_request_error',
  403: 'permission_error',
  404: 'invalid_request_error',
  405: 'invalid_request_error',
  409: 'invalid_request_error',
  413: 'invalid_request_error',
  415: 'invalid_request_error',
  429: 'rate_limit_error',
}

/** OpenAI's `code` for the internal codes it has a name for; the internal code otherwise. */
const CODES: Partial<Record<SpeechError['code'], string>> = {
  unauthorized: 'invalid_api_key',
  reference_not_found: 'voice_not_found',
  not_found: 'not_found',
  rate_limited: 'rate_limit_exceeded',
  validation_failed: 'invalid_value',
  unusable_input: 'invalid_value',
}

export function openAiStatus(e: SpeechError): number {
  // OpenAI has no 422: a field it cannot use is a 400 naming it.
  return e.code === 'validation_failed' || e.code === 'unusable_input' ? 400 : e.status
}

export function openAiErrorBody(e: SpeechError): OpenAiErrorBody {
  const status = openAiStatus(e)
  const issue = e.issues[0]
  // `loc` starts with where the field lives (`body`); OpenAI names the field alone, dotted for nesting.
  const param = issue ? issue.loc.slice(1).join('.') || null : null
  const message = isServerFault(e)
    ? 'Internal server error'
    : issue && e.code === 'validation_failed' ? e.issues.map(issueMessage).join('; ') : e.message
  return {
    error: {
      message,
      type: status >= 500 ? 'server_error' : TYPES[status] ?? 'invalid_request_error',
      param,
      code: CODES[e.code] ?? e.code,
    },
  }
}

/** One field's problem, naming the field unless the message does; a problem with the whole body says so. */
function issueMessage(i: SpeechError['issues'][number]): string {
  const name = i.loc.slice(1).join('.')
  if (name === '') return `The request body ${i.msg.replace(/^value /, '')}; send a JSON object with the fields this endpoint documents`
  return i.msg.includes(`'${i.loc.at(-1)}'`) ? i.msg : `${name}: ${i.msg}`
}

/**
 * The Realtime API's `error` event: the same fields as the HTTP body, plus the client event that caused it.
 * `event_id` is the server's id for this event.
 */
export function openAiRealtimeError(e: SpeechError, eventId: string, clientEventId?: string) {
  const { error } = openAiErrorBody(e)
  return { type: 'error' as const, event_id: eventId, error: { ...error, event_id: clientEventId ?? null } }
}

export function openAiErrorHandler(err: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  if (clientWentAway(err, request, reply)) return
  const e = fromFastifyError(err)
  if (isServerFault(e)) request.log.error({ err: e.cause ?? err }, 'request failed')
  else request.log.info({ code: e.code, msg: e.message }, 'request rejected')
  setRetryAfter(reply, e)
  void reply.code(openAiStatus(e)).type('application/json; charset=utf-8').send(openAiErrorBody(e))
}
