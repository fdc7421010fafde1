// Calls Parla's public API with the key the user entered, and turns failures into sentences a person can act on.

const KEY_STORAGE = 'parla-api-key'

export const getKey = (): string => localStorage.getItem(KEY_STORAGE) ?? ''
export const setKey = (key: string): void => localStorage.setItem(KEY_STORAGE, key.trim())

/** A failed call, with a message meant for the person at the page. */
export class PlaygroundError extends Error {
  readonly status: number
  constructor(status: number, message: string) {
    super(message)
    this.status = status
  }
}

interface Issue {
  loc?: unknown[]
  msg?: string
}

/** Field paths from a 422 (`['body', 'prosody', 'speed']`) as the page's words. */
const FIELD_NAMES: Record<string, string> = {
  text: 'Text', reference_id: 'Voice', speed: 'Speed', voices: 'Reference audio', texts: 'Transcript',
  title: 'Title', tags: 'Tags', audio: 'Audio', cover_image: 'Cover image', references: 'Reference',
}

function issueText(issue: Issue): string {
  const field = (issue.loc ?? []).filter((p): p is string => typeof p === 'string' && p in FIELD_NAMES).at(-1)
  return field ? `${FIELD_NAMES[field]}: ${issue.msg ?? 'not accepted'}` : issue.msg ?? 'not accepted'
}

/** The sentence shown for an HTTP error body. */
export function explain(status: number, body: unknown): string {
  const message = body && typeof body === 'object' && 'message' in body ? String((body as { message: unknown }).message) : ''
  if (status === 401) {
    return 'The API key was not accepted. Paste a valid key in the "API key" box at the top (the server printed one on ' +
      'its first start and saved it in data/api-key; "parla keys create --name me" makes another).'
  }
  if (status === 403) return `This key may not do that: ${message || 'the voice belongs to another account'}.`
  if (status === 404) return `Not found: ${message || 'it may have been deleted'}. Refresh the list and try again.`
  if (status === 413) return `Too large: ${message || 'send a smaller file'}.`
  if (status === 422 && Array.isArray(body)) return `Please fix: ${(body as Issue[]).map(issueText).join('; ')}`
  if (status === 429 || status === 503) return `The server is busy right now; try again in a moment. ${message}`.trim()
  if (status >= 500) return `The server failed (${status}). Try again; if it keeps happening, look at the server's log.`
  return message || `The request failed with status ${status}.`
}

/** `fetch` against the API with the key; throws PlaygroundError with a readable message on any failure. */
export async function api(path: string, init: RequestInit = {}): Promise<Response> {
  const key = getKey()
  if (!key) throw new PlaygroundError(401, 'Enter your API key in the "API key" box at the top first.')
  const headers = new Headers(init.headers)
  headers.set('authorization', `Bearer ${key}`)
  let response: Response
  try {
    response = await fetch(path, { ...init, headers })
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err
    throw new PlaygroundError(0, 'Cannot reach the Parla server. Check that it is running, then try again.')
  }
  if (response.ok) return response
  const text = await response.text().catch(() => '')
  let body: unknown = text
  try {
    body = JSON.parse(text)
  } catch {
    // not JSON: keep the text
  }
  throw new PlaygroundError(response.status, explain(response.status, body))
}

export const getJson = async <T>(path: string): Promise<T> => (await api(path)).json() as Promise<T>

/** A stored file the API serves behind the key (samples, covers), as a URL the page can use. */
export async function blobUrl(path: string): Promise<string> {
  return URL.createObjectURL(await (await api(path)).blob())
}

export type { VoiceModel } from '../../src/api/fish/model-form.js'
