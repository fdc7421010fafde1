import { connect, type Socket } from 'node:net'

/**
 * A Wyoming client written from the protocol's README (not from Parla's code): an event is a JSON header line
 * `{"type", "data"?, "data_length"?, "payload_length"?}\n`, then `data_length` bytes of JSON data merged over
 * the header's `data`, then `payload_length` bytes of payload.
 */
export interface Event {
  type: string
  data: Record<string, unknown>
  payload?: Buffer
}

export interface WyomingClient {
  /** Writes an event with its data after the header (`data_length`), as current clients do. */
  send(type: string, data?: Record<string, unknown>, payload?: Uint8Array): void
  /** Writes an event with `data` inline in the header, as early clients do. */
  sendInline(type: string, data: Record<string, unknown>): void
  raw(bytes: string | Uint8Array): void
  /** The next event; rejects if the connection closes first. */
  next(): Promise<Event>
  /** Events until (and including) one of `type`. */
  until(type: string): Promise<Event[]>
  closed: Promise<void>
  socket: Socket
  close(): void
}

export async function wyomingClient(port: number, host = '127.0.0.1'): Promise<WyomingClient> {
  const socket = connect(port, host)
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject))
  let buffer = Buffer.alloc(0)
  const events: Event[] = []
  const waiters: ((e: Event | null) => void)[] = []
  let ended = false
  const deliver = (e: Event | null) => {
    const w = waiters.shift()
    if (w) w(e)
    else if (e) events.push(e)
  }
  socket.on('data', (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk])
    for (;;) {
      const nl = buffer.indexOf('\n')
      if (nl < 0) return
      const header = JSON.parse(buffer.subarray(0, nl).toString()) as { type: string; data?: Record<string, unknown>; data_length?: number; payload_length?: number }
      const dataLength = header.data_length ?? 0
      const payloadLength = header.payload_length ?? 0
      if (buffer.length < nl + 1 + dataLength + payloadLength) return
      let data = header.data ?? {}
      if (dataLength > 0) data = { ...data, ...(JSON.parse(buffer.subarray(nl + 1, nl + 1 + dataLength).toString()) as Record<string, unknown>) }
      const payload = payloadLength > 0 ? Buffer.from(buffer.subarray(nl + 1 + dataLength, nl + 1 + dataLength + payloadLength)) : undefined
      buffer = buffer.subarray(nl + 1 + dataLength + payloadLength)
      deliver({ type: header.type, data, ...(payload && { payload }) })
    }
  })
  const closed = new Promise<void>((resolve) => socket.on('close', () => {
    ended = true
    while (waiters.length > 0) waiters.shift()!(null)
    resolve()
  }))
  socket.on('error', () => {})
  const client: WyomingClient = {
    socket,
    closed,
    send(type, data, payload) {
      const header: Record<string, unknown> = { type }
      const dataBytes = data ? Buffer.from(JSON.stringify(data)) : undefined
      if (dataBytes) header.data_length = dataBytes.length
      if (payload) header.payload_length = payload.length
      socket.write(Buffer.concat([Buffer.from(JSON.stringify(header) + '\n'), dataBytes ?? Buffer.alloc(0), payload ?? Buffer.alloc(0)]))
    },
    sendInline(type, data) {
      socket.write(JSON.stringify({ type, data }) + '\n')
    },
    raw(bytes) {
      socket.write(bytes)
    },
    next() {
      const e = events.shift()
      if (e) return Promise.resolve(e)
      if (ended) return Promise.reject(new Error('connection closed'))
      return new Promise((resolve, reject) => waiters.push((ev) => (ev ? resolve(ev) : reject(new Error('connection closed')))))
    },
    async until(type) {
      const out: Event[] = []
      for (;;) {
        const e = await client.next()
        out.push(e)
        if (e.type === type) return out
      }
    },
    close() {
      socket.destroy()
    },
  }
  return client
}
