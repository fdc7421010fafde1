import { connect, type Socket } from 'node:net'

/** What came back on a raw connection, read until the server closed it (or `untilBytes` arrived). */
export interface RawAnswer {
  readonly status: number
  readonly headers: Record<string, string>
  readonly body: string
  /** The body as bytes (chunked framing removed). */
  readonly bytes: Buffer
  /** The server closed the connection (rather than the test giving up waiting). */
  readonly closedByServer: boolean
}

/** Opens a TCP connection to `url`'s host and port. */
export function openRaw(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) }, () => resolve(socket))
    socket.once('error', reject)
  })
}

/** Reads everything the server sends on `socket` until it closes it (or `waitMs` passes), and parses one response. */
export function readAnswer(socket: Socket, waitMs = 30_000): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = []
    let closedByServer = false
    const done = () => {
      clearTimeout(timer)
      resolve(parseAnswer(Buffer.concat(chunks), closedByServer))
    }
    const timer = setTimeout(() => {
      socket.destroy()
    }, waitMs)
    socket.on('data', (d: Buffer) => chunks.push(d))
    socket.on('end', () => (closedByServer = true))
    socket.on('error', () => (closedByServer = true))
    socket.on('close', done)
  })
}

/** Sends `bytes` on a fresh connection and reads the answer; `end` also closes the sending side (no more bytes). */
export async function rawRequest(url: string, bytes: string | Buffer, waitMs?: number, end = false): Promise<RawAnswer> {
  const socket = await openRaw(url)
  socket.on('error', () => {})
  const answer = readAnswer(socket, waitMs)
  if (end) socket.end(bytes)
  else socket.write(bytes)
  return answer
}

function parseAnswer(raw: Buffer, closedByServer: boolean): RawAnswer {
  const text = raw.toString('latin1')
  const end = text.indexOf('\r\n\r\n')
  if (end < 0) return { status: 0, headers: {}, body: text, bytes: raw, closedByServer }
  const [statusLine = '', ...lines] = text.slice(0, end).split('\r\n')
  const headers: Record<string, string> = {}
  for (const line of lines) {
    const colon = line.indexOf(':')
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
  }
  let body = raw.subarray(Buffer.byteLength(text.slice(0, end + 4), 'latin1'))
  if (headers['transfer-encoding'] === 'chunked') body = unchunk(body)
  return { status: Number(statusLine.split(' ')[1] ?? 0), headers, body: body.toString('utf8'), bytes: body, closedByServer }
}

function unchunk(body: Buffer): Buffer {
  const parts: Buffer[] = []
  let at = 0
  for (;;) {
    const lineEnd = body.indexOf('\r\n', at)
    if (lineEnd < 0) break
    const size = parseInt(body.subarray(at, lineEnd).toString('latin1'), 16)
    if (!(size > 0)) break
    parts.push(body.subarray(lineEnd + 2, lineEnd + 2 + size))
    at = lineEnd + 2 + size + 2
  }
  return Buffer.concat(parts)
}
