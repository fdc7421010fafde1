import WebSocket from 'ws'

export interface ServerEvent {
  readonly type: string
  readonly [key: string]: unknown
}

/** A raw `ws` client of `/v1/realtime` that records every server event (JSON text frames). */
export class RealtimeClient {
  readonly ws: WebSocket
  readonly events: ServerEvent[] = []
  closed: { code: number; reason: string } | undefined
  #waiters: (() => void)[] = []

  private constructor(ws: WebSocket) {
    this.ws = ws
    ws.on('message', (data: Buffer) => {
      this.events.push(JSON.parse(String(data)) as ServerEvent)
      this.#wake()
    })
    ws.on('close', (code, reason) => {
      this.closed = { code, reason: String(reason) }
      this.#wake()
    })
  }

  static connect(url: string, headers: Record<string, string>, query = '?intent=transcription&model=gpt-4o-transcribe'): Promise<RealtimeClient> {
    const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/v1/realtime${query}`, { headers })
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(new RealtimeClient(ws)))
      ws.once('error', reject)
    })
  }

  send(event: object): void {
    this.ws.send(JSON.stringify(event))
  }

  /** Resolves with the first event (from `from` on) that `match` accepts; rejects if the socket closes first. */
  async waitFor(match: (e: ServerEvent) => boolean, from = 0): Promise<ServerEvent> {
    for (;;) {
      const found = this.events.slice(from).find(match)
      if (found) return found
      if (this.closed) throw new Error(`socket closed (${this.closed.code} ${this.closed.reason}) before the event came`)
      await new Promise<void>((resolve) => this.#waiters.push(resolve))
    }
  }

  /** Resolves once the socket is closed. */
  async waitClosed(): Promise<{ code: number; reason: string }> {
    while (!this.closed) await new Promise<void>((resolve) => this.#waiters.push(resolve))
    return this.closed
  }

  #wake(): void {
    for (const w of this.#waiters.splice(0)) w()
  }
}
