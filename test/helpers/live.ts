import { decode, encode } from '@msgpack/msgpack'
import WebSocket from 'ws'

/** A server frame as received, with how it arrived. */
export interface Received {
  readonly frame: { readonly event?: unknown; readonly [key: string]: unknown }
  readonly binary: boolean
  readonly at: number
  /** The previous frame arrived in the same tick (no microtask checkpoint in between). */
  readonly sameTick: boolean
}

/**
 * A raw `ws` client of `/v1/tts/live` that records every server frame: whether it was binary, whether it
 * decodes as a MessagePack map, and whether it arrived in the same tick as the one before.
 */
export class LiveClient {
  readonly ws: WebSocket
  readonly received: Received[] = []
  /** Frames that were not binary MessagePack maps with an `event` key. */
  readonly malformed: unknown[] = []
  private waiters: (() => void)[] = []
  private tickBusy = false
  closed: { code: number; reason: string } | undefined

  private constructor(ws: WebSocket) {
    this.ws = ws
    ws.on('message', (data: Buffer, binary) => {
      let frame: Received['frame'] = {}
      try {
        const decoded = decode(data) as Received['frame']
        if (typeof decoded === 'object' && decoded !== null && 'event' in decoded) frame = decoded
        else this.malformed.push(decoded)
      } catch {
        this.malformed.push(data)
      }
      if (!binary) this.malformed.push(String(data))
      this.received.push({ frame, binary, at: performance.now(), sameTick: this.tickBusy })
      this.tickBusy = true
      queueMicrotask(() => (this.tickBusy = false))
      this.wake()
    })
    ws.on('close', (code, reason) => {
      this.closed = { code, reason: String(reason) }
      this.wake()
    })
  }

  static connect(url: string, headers: Record<string, string>): Promise<LiveClient> {
    const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/v1/tts/live`, { headers })
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(new LiveClient(ws)))
      ws.once('error', reject)
    })
  }

  send(frame: object): void {
    this.ws.send(encode(frame))
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w()
  }

  /** Waits until a frame after index `from` matches, and returns its index. */
  async waitFor(match: (r: Received) => boolean, from = 0, timeoutMs = 150_000): Promise<number> {
    const deadline = performance.now() + timeoutMs
    for (;;) {
      const i = this.received.findIndex((r, k) => k >= from && match(r))
      if (i >= 0) return i
      if (this.closed) throw new Error(`socket closed (${this.closed.code} ${this.closed.reason}) while waiting`)
      const left = deadline - performance.now()
      if (left <= 0) throw new Error(`no matching frame within ${timeoutMs} ms; got ${this.received.map((r) => r.frame.event).join(',')}`)
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left)
        this.waiters.push(() => {
          clearTimeout(timer)
          resolve()
        })
      })
    }
  }

  /** Waits for the next `finish` after index `from`; returns it and the audio before it (from `from`). */
  async finish(from = 0, timeoutMs = 150_000): Promise<{ finish: Received['frame']; audio: Buffer; index: number }> {
    const index = await this.waitFor((r) => r.frame.event === 'finish', from, timeoutMs)
    return { finish: this.received[index]!.frame, audio: this.audio(from, index), index }
  }

  /** Concatenated audio of frames [from, to). */
  audio(from = 0, to = this.received.length): Buffer {
    return Buffer.concat(
      this.received.slice(from, to).flatMap((r) => (r.frame.event === 'audio' ? [Buffer.from(r.frame.audio as Uint8Array)] : [])),
    )
  }

  /** A whole utterance: start, text in word-sized pieces, stop; resolves at `finish`. */
  async speak(request: object, text: string): Promise<{ finish: Received['frame']; audio: Buffer; index: number }> {
    const from = this.received.length
    this.send({ event: 'start', request: { text: '', ...request } })
    for (const word of text.match(/\S+\s*/g) ?? []) this.send({ event: 'text', text: word })
    this.send({ event: 'stop' })
    return this.finish(from)
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve()
    return new Promise((resolve) => {
      this.ws.once('close', () => resolve())
      this.ws.close()
    })
  }
}
