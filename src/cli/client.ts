import { CliError, EXIT } from './exit.js'

interface Issue {
  loc?: unknown[]
  msg?: string
}

/** Where a 422's field lives, which a user of the command does not need to read. */
const LOC_ROOTS = new Set(['body', 'query', 'path', 'header'])

/** One 422 entry as `field: message`, or the message alone when it already starts with the field. */
function describeIssue(issue: Issue): string {
  const loc = (issue.loc ?? []).map(String)
  const field = (LOC_ROOTS.has(loc[0] ?? '') ? loc.slice(1) : loc).join('.')
  const msg = issue.msg ?? 'invalid'
  return field === '' || msg.startsWith(field) || msg.startsWith(`'${field}'`) ? msg : `${field}: ${msg}`
}

/** The API's error body as one line: `{status, message}` or the 422 list of `{loc, msg}`. */
function describe(status: number, text: string): string {
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    return text.trim() || `HTTP ${status}`
  }
  if (Array.isArray(body)) return (body as Issue[]).map(describeIssue).join('; ')
  if (body && typeof body === 'object' && 'message' in body) return String((body as { message: unknown }).message)
  return text.trim()
}

function exitCodeFor(status: number): number {
  if (status === 401 || status === 403) return EXIT.auth
  if (status === 404) return EXIT.notFound
  if (status >= 400 && status < 500) return EXIT.usage
  return EXIT.failed
}

/** Parla's HTTP API with a key. Failures become CliError with the server's message and a meaningful exit code. */
export class ParlaClient {
  readonly base: string
  private readonly key: string

  constructor(base: string, key: string) {
    this.base = base.replace(/\/+$/, '')
    this.key = key
  }

  async request(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers)
    headers.set('authorization', `Bearer ${this.key}`)
    let response: Response
    try {
      response = await fetch(this.base + path, { ...init, headers })
    } catch (err) {
      const cause = (err as { cause?: { code?: string; message?: string } }).cause
      throw new CliError(EXIT.unreachable, `cannot reach ${this.base} (${cause?.code ?? cause?.message ?? (err as Error).message}); is the server running?`)
    }
    if (response.ok) return response
    const message = describe(response.status, await response.text().catch(() => ''))
    const hint = response.status === 401 ? ' (check --key or PARLA_KEY)' : ''
    throw new CliError(exitCodeFor(response.status), `${message}${hint} [HTTP ${response.status}]`)
  }

  async json<T>(path: string, init: RequestInit = {}): Promise<T> {
    return (await this.request(path, init)).json() as Promise<T>
  }
}

export interface SseEvent {
  audio_base64: string
  alignment: { segments: { text: string; start: number; end: number }[]; audio_duration: number } | null
  chunk_seq: number
  chunk_audio_offset_sec: number
}

/** Server-Sent Events of `/v1/tts/stream/with-timestamp`, parsed as they arrive. */
export async function* sseEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder()
  let buffer = ''
  for await (const bytes of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(bytes, { stream: true })
    let end: number
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const data = buffer.slice(0, end).split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trimStart()).join('\n')
      buffer = buffer.slice(end + 2)
      if (data) yield JSON.parse(data) as SseEvent
    }
  }
}
