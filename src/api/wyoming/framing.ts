/**
 * Wyoming's framing: each event is one JSON header line `{"type", "data"?, "data_length"?, "payload_length"?}`
 * followed by `data_length` bytes of UTF-8 JSON (merged over the header's `data`) and `payload_length` bytes of
 * payload (audio). Written from the protocol's README and the reference implementation's reader.
 */
export interface WyomingEvent {
  readonly type: string
  readonly data: Record<string, unknown>
  readonly payload?: Uint8Array
}

/** The protocol version Parla writes in headers: the one whose events (streaming synthesis) it implements. */
export const WYOMING_VERSION = '1.8.0'

/** Limits that keep a confused or hostile client from making the server buffer without end. */
const MAX_HEADER_BYTES = 64 * 1024
const MAX_DATA_BYTES = 1024 * 1024
const MAX_PAYLOAD_BYTES = 4 * 1024 * 1024

/** One event as bytes: header line, then data, then payload (data separate, as current writers do). */
export function encodeEvent(type: string, data?: Record<string, unknown>, payload?: Uint8Array): Buffer {
  const header: Record<string, unknown> = { type, version: WYOMING_VERSION }
  const dataBytes = data && Object.keys(data).length > 0 ? Buffer.from(JSON.stringify(data)) : undefined
  if (dataBytes) header.data_length = dataBytes.length
  if (payload && payload.length > 0) header.payload_length = payload.length
  return Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`), ...(dataBytes ? [dataBytes] : []), ...(payload && payload.length > 0 ? [payload] : [])])
}

/** A framing problem: `fatal` when the stream cannot be followed any further (the connection closes). */
export class FramingError extends Error {
  override readonly name = 'FramingError'
  readonly fatal: boolean
  constructor(message: string, fatal: boolean) {
    super(message)
    this.fatal = fatal
  }
}

/**
 * Incremental reader: `push` bytes as they arrive, get back complete events and framing errors in order. A
 * header line that is not a JSON object with a `type` is reported and skipped (the next line is a new event);
 * an over-long header or a size over the limits is fatal, since the rest of the stream cannot be framed.
 */
export function createEventReader() {
  let buffer = Buffer.alloc(0)
  let pending: { type: string; data: Record<string, unknown>; dataLength: number; payloadLength: number } | undefined
  let broken = false

  const parseHeader = (line: string): typeof pending | FramingError => {
    let header: unknown
    try {
      header = JSON.parse(line)
    } catch {
      return new FramingError(`event header is not JSON: ${line.slice(0, 80)}`, false)
    }
    if (!header || typeof header !== 'object' || Array.isArray(header)) return new FramingError('event header must be a JSON object', false)
    const h = header as Record<string, unknown>
    if (typeof h.type !== 'string' || h.type === '') return new FramingError('event header has no "type"', false)
    const size = (key: string, max: number): number | FramingError => {
      const v = h[key] ?? 0
      if (!Number.isInteger(v) || (v as number) < 0) return new FramingError(`"${key}" must be a non-negative integer`, true)
      if ((v as number) > max) return new FramingError(`"${key}" ${String(v)} is over the limit of ${max} bytes`, true)
      return v as number
    }
    const dataLength = size('data_length', MAX_DATA_BYTES)
    if (dataLength instanceof FramingError) return dataLength
    const payloadLength = size('payload_length', MAX_PAYLOAD_BYTES)
    if (payloadLength instanceof FramingError) return payloadLength
    const data = h.data && typeof h.data === 'object' && !Array.isArray(h.data) ? (h.data as Record<string, unknown>) : {}
    return { type: h.type, data, dataLength, payloadLength }
  }

  return {
    push(chunk: Uint8Array): (WyomingEvent | FramingError)[] {
      if (broken) return []
      buffer = buffer.length === 0 ? Buffer.from(chunk) : Buffer.concat([buffer, chunk])
      const out: (WyomingEvent | FramingError)[] = []
      for (;;) {
        if (!pending) {
          const newline = buffer.indexOf(0x0a)
          // Over-long whether or not its newline came in the same read: the limit does not depend on TCP chunking.
          if (newline < 0 || newline > MAX_HEADER_BYTES) {
            if (newline > MAX_HEADER_BYTES || buffer.length > MAX_HEADER_BYTES) {
              broken = true
              out.push(new FramingError(`event header is longer than ${MAX_HEADER_BYTES} bytes; a header is one short JSON line ending in a newline`, true))
            }
            return out
          }
          const line = buffer.subarray(0, newline).toString('utf8').trim()
          buffer = buffer.subarray(newline + 1)
          if (line === '') continue
          const header = parseHeader(line)
          if (header instanceof FramingError) {
            out.push(header)
            if (header.fatal) {
              broken = true
              return out
            }
            continue
          }
          pending = header
        }
        if (buffer.length < pending!.dataLength + pending!.payloadLength) return out
        const { type, dataLength, payloadLength } = pending!
        let data = pending!.data
        pending = undefined
        if (dataLength > 0) {
          try {
            const extra: unknown = JSON.parse(buffer.subarray(0, dataLength).toString('utf8'))
            if (!extra || typeof extra !== 'object' || Array.isArray(extra)) throw new Error('not an object')
            data = { ...data, ...(extra as Record<string, unknown>) }
          } catch {
            out.push(new FramingError(`the data of a "${type}" event is not a JSON object`, false))
            buffer = buffer.subarray(dataLength + payloadLength)
            continue
          }
        }
        const payload = payloadLength > 0 ? new Uint8Array(buffer.subarray(dataLength, dataLength + payloadLength)) : undefined
        buffer = buffer.subarray(dataLength + payloadLength)
        out.push({ type, data, ...(payload && { payload }) })
      }
    },
  }
}
