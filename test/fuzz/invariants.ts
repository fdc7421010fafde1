/**
 * Invariants every surface's answers must keep, whatever the input: no 5xx, every error body in the surface's
 * exact shape, nothing stored by a request that failed, and normal service afterwards. Surface modules
 * (`fish-http.ts`, `fish-live.ts`, later OpenAI or Wyoming) call these and add their own shape checks.
 */
import type { TestServer } from '../helpers/app.js'

/** A broken invariant; fast-check shrinks the input that raised it and prints both. */
export class Violation extends Error {
  override readonly name = 'Violation'
}

export function check(ok: boolean, what: string, detail?: unknown): asserts ok {
  if (!ok) throw new Violation(detail === undefined ? what : `${what}: ${typeof detail === 'string' ? detail : JSON.stringify(detail)}`.slice(0, 2000))
}

/** An error answer must be JSON, by its content type and its body. */
function parseErrorBody(status: number, contentType: string | undefined, body: string): unknown {
  check(/^application\/json/.test(contentType ?? ''), `${status} with content type ${contentType}`, body.slice(0, 200))
  try {
    return JSON.parse(body)
  } catch {
    throw new Violation(`${status} body is not JSON: ${body.slice(0, 200)}`)
  }
}

const ISSUE_KEYS = new Set(['loc', 'type', 'msg', 'ctx', 'in'])
const ISSUE_IN = new Set(['path', 'query', 'header', 'cookie', 'body'])

/** Fish surface: non-2xx is JSON `{status, message}` (exactly those keys) or, for 422, the issue array. */
export function checkFishAnswer(status: number, contentType: string | undefined, body: string, method = 'POST'): void {
  check(status < 500, `${status} answer`, body.slice(0, 300))
  if (status < 400 || method === 'HEAD') return
  const parsed = parseErrorBody(status, contentType, body)
  // 422: the field array, or `{status, message}` for input that validates but cannot be used (undecodable
  // audio, text with nothing to speak), which every SDK parses (docs/decisions.md).
  if (status === 422 && !Array.isArray(parsed)) return checkStatusMessage(status, parsed)
  if (status === 422) {
    check(Array.isArray(parsed) && parsed.length > 0, '422 body is not a non-empty array', parsed)
    for (const issue of parsed as Record<string, unknown>[]) {
      check(typeof issue === 'object' && issue !== null && Object.keys(issue).every((k) => ISSUE_KEYS.has(k)), '422 issue has other keys', issue)
      check(Array.isArray(issue.loc) && issue.loc.every((p) => typeof p === 'string'), '422 loc is not a string array', issue)
      check(typeof issue.type === 'string' && typeof issue.msg === 'string' && issue.msg !== '', '422 type/msg', issue)
      check(issue.ctx === undefined || typeof issue.ctx === 'string', '422 ctx', issue)
      check(issue.in === undefined || ISSUE_IN.has(issue.in as string), '422 in', issue)
    }
    return
  }
  checkStatusMessage(status, parsed)
}

/** `{status, message}`, exactly those keys, with the HTTP status and a message. */
function checkStatusMessage(status: number, parsed: unknown): void {
  const o = parsed as Record<string, unknown>
  check(typeof o === 'object' && o !== null && !Array.isArray(o), `${status} body is not an object`, parsed)
  check(Object.keys(o).sort().join(',') === 'message,status', `${status} body keys are not exactly status, message`, parsed)
  check(o.status === status, `body status ${String(o.status)} differs from HTTP ${status}`)
  check(typeof o.message === 'string' && o.message.length > 0, `${status} message is empty`)
}

/** What a failed request must not change: model rows and stored blobs. */
export async function storedState(s: TestServer): Promise<{ models: number; blobs: number }> {
  const row = await s.deps.db.selectFrom('models').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()
  return { models: Number(row.n), blobs: (await s.deps.blobs.list('')).length }
}

/** The server still serves a normal TTS request with audio. */
export async function checkStillServing(s: TestServer): Promise<void> {
  const res = await s.app.inject({
    method: 'POST',
    url: '/v1/tts',
    headers: { ...s.asAlice, 'content-type': 'application/json' },
    payload: { text: 'Still here.', format: 'wav', sample_rate: 16000 },
  })
  check(res.statusCode === 200 && res.rawPayload.length > 8000, 'a normal TTS request failed after fuzzing', `${res.statusCode} ${res.body.slice(0, 200)}`)
}

/** Connections still open on the listener once clients are done, after up to `waitMs` for closes under way. */
export async function openConnections(s: TestServer, waitMs = 5000): Promise<number> {
  const count = () => new Promise<number>((resolve) => s.app.server.getConnections((err, n) => resolve(err ? -1 : n)))
  const until = performance.now() + waitMs
  let n = await count()
  while (n > 0 && performance.now() < until) {
    await new Promise((r) => setTimeout(r, 50))
    n = await count()
  }
  return n
}

const OPENAI_ERROR_KEYS = 'code,message,param,type'

/** OpenAI surface: non-2xx is JSON `{"error": {message, type, param, code}}`, exactly those keys, never a 422. */
export function checkOpenAiAnswer(status: number, contentType: string | undefined, body: string, method = 'POST'): void {
  check(status < 500, `${status} answer`, body.slice(0, 300))
  check(status !== 422, 'a 422 on the OpenAI surface (OpenAI answers field errors with 400)', body.slice(0, 300))
  if (status < 400 || method === 'HEAD') return
  const parsed = parseErrorBody(status, contentType, body)
  checkOpenAiError(parsed, `${status} body`)
}

/** `{error: {message, type, param, code}}`: also the `error` event of the SSE variant. */
export function checkOpenAiError(parsed: unknown, what: string): void {
  const o = parsed as Record<string, unknown>
  check(typeof o === 'object' && o !== null && Object.keys(o).filter((k) => k !== 'type').join(',') === 'error', `${what} is not {error}`, parsed)
  const e = o.error as Record<string, unknown>
  check(typeof e === 'object' && e !== null && Object.keys(e).sort().join(',') === OPENAI_ERROR_KEYS, `${what}: error keys are not exactly message, type, param, code`, parsed)
  check(typeof e.message === 'string' && e.message !== '' && e.message !== 'Internal server error' && !/^[\s:;.]/.test(e.message), `${what}: no clear client-facing message`, parsed)
  check(typeof e.type === 'string' && e.type !== 'server_error', `${what}: type`, parsed)
  check(e.param === null || typeof e.param === 'string', `${what}: param`, parsed)
  check(e.code === null || typeof e.code === 'string', `${what}: code`, parsed)
}
