/**
 * Clients for `bench/admission.ts`: each surface spoken as a listener hears it. Audio is 16-bit pcm at
 * 16 kHz, so bytes say how many seconds arrived; a `Playback` tracks whether each chunk arrived before a
 * listener that started playing at the first chunk would have run out.
 */
import { decode, encode } from '@msgpack/msgpack'
import WebSocket from 'ws'

export const RATE = 16_000
const BYTES_PER_SEC = RATE * 2

/** The outcome of one stream. `late`: how far the worst chunk came after the listener ran dry, ms (≤ 0: never). */
export type Outcome =
  | { kind: 'served'; surface: string; firstAudioMs: number; audioSec: number; lateMs: number }
  | { kind: 'rejected'; surface: string; status: number; retryAfter: string | undefined; rejectMs: number; detail?: string }
  | { kind: 'failed'; surface: string; status: number; detail: string }

/** Arrival times of audio against real-time playback from the first chunk. */
export class Playback {
  private startedAt = 0
  private audioSec = 0
  private worstLateMs = -Infinity
  firstAt = 0

  add(bytes: number): void {
    if (bytes === 0) return
    const now = performance.now()
    if (this.startedAt === 0) this.startedAt = this.firstAt = now
    // The listener has played (now - start); it had audioSec to play before this chunk.
    else this.worstLateMs = Math.max(this.worstLateMs, now - this.startedAt - this.audioSec * 1000)
    this.audioSec += bytes / BYTES_PER_SEC
  }

  get seconds(): number {
    return this.audioSec
  }

  get lateMs(): number {
    return this.worstLateMs === -Infinity ? 0 : this.worstLateMs
  }
}

const ttsBody = (text: string) => ({ text, format: 'pcm', sample_rate: RATE, latency: 'balanced' })

/** `POST /v1/tts` or the SSE route, read as it streams. */
export async function httpTts(url: string, key: string, surface: 'tts' | 'sse', text: string): Promise<Outcome> {
  const t0 = performance.now()
  const path = surface === 'tts' ? '/v1/tts' : '/v1/tts/stream/with-timestamp'
  const res = await fetch(`${url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(ttsBody(text)) })
  if (res.status !== 200) return answerOf(surface, res, t0)
  const playback = new Playback()
  let rest = ''
  const decoder = new TextDecoder()
  for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
    if (surface === 'tts') {
      playback.add(chunk.length)
      continue
    }
    rest += decoder.decode(chunk, { stream: true })
    let cut: number
    while ((cut = rest.indexOf('\n\n')) >= 0) {
      const message = rest.slice(0, cut)
      rest = rest.slice(cut + 2)
      if (message.startsWith('data: ')) playback.add(Buffer.from((JSON.parse(message.slice(6)) as { audio_base64: string }).audio_base64, 'base64').length)
    }
  }
  return { kind: 'served', surface, firstAudioMs: playback.firstAt - t0, audioSec: playback.seconds, lateMs: playback.lateMs }
}

/** `POST /v1/asr` with a WAV file. */
export async function asr(url: string, key: string, wav: Uint8Array): Promise<Outcome> {
  const t0 = performance.now()
  const form = new FormData()
  form.append('audio', new Blob([wav], { type: 'audio/wav' }), 'speech.wav')
  const res = await fetch(`${url}/v1/asr`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form })
  if (res.status !== 200) return answerOf('asr', res, t0)
  await res.arrayBuffer()
  return { kind: 'served', surface: 'asr', firstAudioMs: performance.now() - t0, audioSec: 0, lateMs: 0 }
}

async function answerOf(surface: string, res: Response, t0: number): Promise<Outcome> {
  const body = await res.text()
  if (res.status === 503 || res.status === 429) {
    let detail = body.slice(0, 200)
    try {
      detail = (JSON.parse(body) as { message?: string }).message ?? detail
    } catch { /* not JSON: the body's start */ }
    return { kind: 'rejected', surface, status: res.status, retryAfter: res.headers.get('retry-after') ?? undefined, rejectMs: performance.now() - t0, detail }
  }
  return { kind: 'failed', surface, status: res.status, detail: body.slice(0, 200) }
}

/** One live socket; `reply` sends the text (all of it, or word by word), flushes and stops, and waits for finish. */
export class LiveSocket {
  private readonly ws: WebSocket
  private listener: ((frame: { event: string; audio?: Uint8Array; reason?: string; message?: string }) => void) | undefined

  private constructor(ws: WebSocket) {
    this.ws = ws
    ws.on('message', (data: Buffer) => this.listener?.(decode(data) as never))
    ws.on('close', () => this.listener?.({ event: 'closed' }))
  }

  static open(url: string, key: string): Promise<LiveSocket> {
    const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/v1/tts/live`, { headers: { authorization: `Bearer ${key}` } })
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(new LiveSocket(ws)))
      ws.once('error', reject)
    })
  }

  /** Sends `text` before the flush; resolves to a function that flushes and waits for `finish`. */
  async prepare(text: string, gapMs: number): Promise<() => Promise<Outcome>> {
    const playback = new Playback()
    // A socket asks for its place with its first sentence, which may be before the flush.
    const askedAt = performance.now()
    let flushedAt = 0
    // Whether the error came after some of the reply's audio (mid-utterance) or before any.
    const midway = (message: string) => `${playback.seconds > 0 ? `after ${playback.seconds.toFixed(1)} s of audio` : 'before any audio'}: ${message}`
    const done = new Promise<Outcome>((resolve) => {
      this.listener = (frame) => {
        if (frame.event === 'audio') playback.add(frame.audio!.length)
        else if (frame.event === 'closed') resolve({ kind: 'failed', surface: 'live', status: 0, detail: 'socket closed' })
        else if (frame.event !== 'finish') return
        else if (frame.reason === 'stop') resolve({ kind: 'served', surface: 'live', firstAudioMs: playback.firstAt - flushedAt, audioSec: playback.seconds, lateMs: playback.lateMs })
        else if (/at capacity/.test(frame.message ?? '')) resolve({ kind: 'rejected', surface: 'live', status: 503, retryAfter: /retry in (\d+) s/.exec(frame.message!)?.[1], rejectMs: performance.now() - askedAt, detail: midway(frame.message!) })
        else resolve({ kind: 'failed', surface: 'live', status: 0, detail: midway(frame.message ?? 'finish error') })
      }
    })
    this.send({ event: 'start', request: { ...ttsBody(''), text: '' } })
    for (const [i, word] of text.split(' ').entries()) {
      if (gapMs > 0) await new Promise((r) => setTimeout(r, gapMs))
      this.send({ event: 'text', text: i === 0 ? word : ` ${word}` })
    }
    return async () => {
      flushedAt = performance.now()
      this.send({ event: 'flush' })
      this.send({ event: 'stop' })
      return done
    }
  }

  close(): void {
    this.ws.close()
  }

  private send(frame: object): void {
    if (this.ws.readyState === this.ws.OPEN) this.ws.send(encode(frame))
  }
}
