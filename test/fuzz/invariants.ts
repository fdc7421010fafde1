/**
 * Invariants every surface's answers must keep, whatever the input: no 5xx but a 503 that says when to retry,
 * every error body in the surface's exact shape (every Fish 422 the field list), no 200 without audio from
 * a TTS route, nothing stored by a request that failed, and normal service afterwards. Surface modules
 * (`fish-http.ts`, `fish-live.ts`, `openai.ts`, `wyoming.ts`) call these and add their own shape checks.
 */
import type { TestServer } from '../helpers/app.js'

/** A broken invariant; fast-check shrinks the input that raised it and prints both. */
export class Violation extends Error {
  override readonly name = 'Violation'
}

export function check(ok: boolean, what: string, detail?: unknown): asserts ok {
  if (!ok) throw new Violation(detail === undefined ? what : `${what}: ${typeof detail === 'string' ? detail : JSON.stringify(detail)}`.slice(0, 2000))
}

/** The response headers the checks read (Fastify's inject and the raw client both give this shape). */
export type AnswerHeaders = Readonly<Record<string, unknown>>

/** No server fault: a 5xx is only a full server's 503 with `Retry-After`, which a client can act on. */
function checkNoServerFault(status: number, headers: AnswerHeaders, body: string): void {
  const retryAfter = headers['retry-after']
  check(status < 500 || (status === 503 && typeof retryAfter === 'string' && /^\d+$/.test(retryAfter)), `${status} answer${status === 503 ? ' without Retry-After' : ''}`, body.slice(0, 300))
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

/** Fish surface: non-2xx is JSON `{status, message}` (exactly those keys) or, for every 422, the issue array. */
export function checkFishAnswer(status: number, headers: AnswerHeaders, body: string, method = 'POST'): void {
  checkNoServerFault(status, headers, body)
  if (status < 400 || method === 'HEAD') return
  const parsed = parseErrorBody(status, headers['content-type'] as string | undefined, body)
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
export function checkOpenAiAnswer(status: number, headers: AnswerHeaders, body: string, method = 'POST'): void {
  checkNoServerFault(status, headers, body)
  check(status !== 422, 'a 422 on the OpenAI surface (OpenAI answers field errors with 400)', body.slice(0, 300))
  if (status < 400 || method === 'HEAD') return
  const parsed = parseErrorBody(status, headers['content-type'] as string | undefined, body)
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

/**
 * A 200 from a Fish TTS route carries audio: SSE has an event with audio in it; raw PCM and WAV have a sample
 * that is not silence (a WAV header alone, or a body of zeros, is a 200 without speech); MP3 and Opus are not
 * empty.
 */
export function checkTtsAudio(url: string, headers: AnswerHeaders, raw: Buffer): void {
  const type = String(headers['content-type'] ?? '')
  if (url.includes('/stream/')) {
    const events = raw.toString('utf8').split('\n\n').filter((m) => m.startsWith('data: ')).map((m) => JSON.parse(m.slice(6)) as { audio_base64?: string })
    return check(events.some((e) => (e.audio_base64 ?? '') !== ''), 'an SSE 200 without audio in any event', `${events.length} events`)
  }
  check(raw.length > 0, 'a TTS 200 with an empty body', type)
  if (!type.startsWith('audio/wav') && !type.startsWith('application/octet-stream')) return
  const pcm = type.startsWith('audio/wav') ? raw.subarray(44) : raw
  const samples = new Int16Array(pcm.buffer.slice(pcm.byteOffset, pcm.byteOffset + (pcm.length & ~1)))
  check(samples.some((v) => v !== 0), 'a TTS 200 with no sound in it', `${type}, ${raw.length} bytes`)
}
