/**
 * Clients for `bench/soak.ts`. Each returns what it got, so the soak can compare it with the answer the same
 * request got alone (a reference): audio that differs is audio mixed between streams, or cut short.
 */
import { createHash } from 'node:crypto'
import { decode, encode } from '@msgpack/msgpack'
import WebSocket from 'ws'

export type Answer =
  | { kind: 'audio'; digest: string; bytes: number }
  | { kind: 'text'; text: string }
  | { kind: 'cancelled' }
  | { kind: 'refused'; status: number; retryAfter: string | undefined }
  | { kind: 'error'; detail: string }

export const RATE = 16_000
const auth = (key: string) => ({ authorization: `Bearer ${key}` })

/**
 * A digest of audio bytes. An Ogg stream's serial number is random per response, and each page's CRC covers
 * it: both are blanked, so equal audio gives equal digests.
 */
export function audioDigest(bytes: Uint8Array, format: string): string {
  const copy = new Uint8Array(bytes)
  if (format === 'opus') {
    for (let at = 0; at + 27 <= copy.length && copy[at] === 0x4f && copy[at + 1] === 0x67;) {
      copy.fill(0, at + 14, at + 18)
      copy.fill(0, at + 22, at + 26)
      const segments = copy[at + 26]!
      let body = 0
      for (let i = 0; i < segments; i++) body += copy[at + 27 + i]!
      at += 27 + segments + body
    }
  }
  return createHash('sha256').update(copy).digest('hex').slice(0, 16)
}

async function refusal(res: Response): Promise<Answer> {
  const body = await res.text()
  if (res.status === 503 || res.status === 429) return { kind: 'refused', status: res.status, retryAfter: res.headers.get('retry-after') ?? undefined }
  return { kind: 'error', detail: `${res.status} ${body.slice(0, 160)}` }
}

const post = (url: string, key: string, path: string, body: object, signal?: AbortSignal) =>
  fetch(`${url}${path}`, { method: 'POST', headers: { ...auth(key), 'content-type': 'application/json' }, body: JSON.stringify(body), ...(signal && { signal }) })

/** `POST /v1/tts`; `cancelAfterFirst`: the client goes away after the first chunk (a cancellation). */
export async function tts(url: string, key: string, text: string, format: string, cancelAfterFirst = false, extra: object = {}): Promise<Answer> {
  const gone = new AbortController()
  const res = await post(url, key, '/v1/tts', { text, format, sample_rate: RATE, ...extra }, gone.signal)
  if (res.status !== 200) return refusal(res)
  const chunks: Uint8Array[] = []
  try {
    for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
      chunks.push(chunk)
      if (cancelAfterFirst) {
        gone.abort()
        return { kind: 'cancelled' }
      }
    }
  } catch (err) {
    if (cancelAfterFirst) return { kind: 'cancelled' }
    return { kind: 'error', detail: `tts body: ${String(err)}` }
  }
  const bytes = Buffer.concat(chunks)
  return { kind: 'audio', digest: audioDigest(bytes, format), bytes: bytes.length }
}

/** The SSE route with pcm audio: the audio of every event, in order. `extra`: more body fields. */
export async function sse(url: string, key: string, text: string, extra: object = {}): Promise<Answer> {
  const res = await post(url, key, '/v1/tts/stream/with-timestamp', { text, format: 'pcm', sample_rate: RATE, ...extra })
  if (res.status !== 200) return refusal(res)
  const audio: Buffer[] = []
  for (const message of (await res.text()).split('\n\n')) {
    if (!message.startsWith('data: ')) continue
    const event = JSON.parse(message.slice(6)) as { audio_base64?: string }
    if (event.audio_base64) audio.push(Buffer.from(event.audio_base64, 'base64'))
  }
  const bytes = Buffer.concat(audio)
  return { kind: 'audio', digest: audioDigest(bytes, 'pcm'), bytes: bytes.length }
}

/** `POST /v1/asr` with a WAV file. */
export async function asr(url: string, key: string, wav: Uint8Array): Promise<Answer> {
  const form = new FormData()
  form.append('audio', new Blob([wav], { type: 'audio/wav' }), 'speech.wav')
  const res = await fetch(`${url}/v1/asr`, { method: 'POST', headers: auth(key), body: form })
  if (res.status !== 200) return refusal(res)
  return { kind: 'text', text: ((await res.json()) as { text: string }).text }
}

/**
 * One live socket, one utterance at a time: `start`, the sentence in one `text` frame, `stop`, then the audio
 * until `finish`. One sentence at `latency: normal` is one unit, so its audio does not depend on timing.
 */
export class LiveClient {
  private readonly ws: WebSocket
  private onFrame: ((frame: { event: string; audio?: Uint8Array; reason?: string; message?: string }) => void) | undefined

  private constructor(ws: WebSocket) {
    this.ws = ws
    ws.on('message', (data: Buffer) => this.onFrame?.(decode(data) as never))
    ws.on('close', () => this.onFrame?.({ event: 'closed' }))
  }

  static open(url: string, key: string): Promise<LiveClient> {
    const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/v1/tts/live`, { headers: auth(key) })
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(new LiveClient(ws)))
      ws.once('error', reject)
    })
  }

  get open(): boolean {
    return this.ws.readyState === this.ws.OPEN
  }

  say(text: string): Promise<Answer> {
    const audio: Uint8Array[] = []
    const done = new Promise<Answer>((resolve) => {
      this.onFrame = (frame) => {
        if (frame.event === 'audio') audio.push(frame.audio!)
        else if (frame.event === 'closed') resolve({ kind: 'error', detail: 'live socket closed' })
        else if (frame.event !== 'finish') return
        else if (frame.reason === 'stop') {
          const bytes = Buffer.concat(audio)
          resolve({ kind: 'audio', digest: audioDigest(bytes, 'pcm'), bytes: bytes.length })
        } else if (/at capacity/.test(frame.message ?? '')) {
          resolve({ kind: 'refused', status: 503, retryAfter: /retry in (\d+) s/.exec(frame.message!)?.[1] })
        } else resolve({ kind: 'error', detail: `live: ${frame.message ?? 'finish error'}` })
      }
    })
    this.send({ event: 'start', request: { text: '', format: 'pcm', sample_rate: RATE, latency: 'normal' } })
    this.send({ event: 'text', text })
    this.send({ event: 'stop' })
    return done
  }

  close(): void {
    this.ws.close()
  }

  private send(frame: object): void {
    if (this.open) this.ws.send(encode(frame))
  }
}
