import { open } from 'node:fs/promises'

/**
 * Reads an ONNX file's `metadata_props` (ModelProto field 14) without loading the graph: walks the top-level
 * protobuf fields and skips the rest. Also appends metadata, which is how a bare Piper voice gets the
 * fields the runtime reads (protobuf merges a repeated field written after the others).
 */
export async function readOnnxMetadata(path: string): Promise<Record<string, string>> {
  const file = await open(path, 'r')
  try {
    const size = (await file.stat()).size
    const out: Record<string, string> = {}
    let at = 0
    const head = Buffer.alloc(20)
    while (at < size) {
      const { bytesRead } = await file.read(head, 0, head.length, at)
      let [tag, p] = varint(head, 0)
      const wire = tag & 7
      if (wire === 0) { p = varint(head, p)[1]; at += p; continue }
      if (wire === 5) { at += p + 4; continue }
      if (wire === 1) { at += p + 8; continue }
      if (wire !== 2 || p >= bytesRead) throw new Error(`${path} is not an ONNX model (unexpected protobuf field at byte ${at})`)
      const [len, q] = varint(head, p)
      if (Math.floor(tag / 8) === 14) {
        const body = Buffer.alloc(len)
        await file.read(body, 0, len, at + q)
        const entry = fields(body)
        if (entry[1] !== undefined) out[entry[1]] = entry[2] ?? ''
      }
      at += q + len
    }
    if (at !== size) throw new Error(`${path} is not an ONNX model (truncated)`)
    return out
  } finally {
    await file.close()
  }
}

/** Protobuf bytes of metadata entries, to append to a ModelProto. */
export function metadataBytes(entries: Record<string, string | number>): Buffer {
  const parts: Buffer[] = []
  for (const [k, v] of Object.entries(entries)) {
    const body = Buffer.concat([lengthField(1, Buffer.from(k)), lengthField(2, Buffer.from(String(v)))])
    parts.push(lengthField(14, body))
  }
  return Buffer.concat(parts)
}

const lengthField = (field: number, body: Buffer) => Buffer.concat([Buffer.from(encodeVarint((field << 3) | 2)), Buffer.from(encodeVarint(body.length)), body])

function encodeVarint(n: number): number[] {
  const out: number[] = []
  do {
    let b = n % 128
    n = Math.floor(n / 128)
    if (n > 0) b |= 0x80
    out.push(b)
  } while (n > 0)
  return out
}

function varint(buf: Buffer, at: number): [number, number] {
  let value = 0
  let scale = 1
  for (;;) {
    if (at >= buf.length) throw new Error('truncated protobuf varint')
    const b = buf[at++]!
    value += (b & 0x7f) * scale
    scale *= 128
    if (b < 0x80) return [value, at]
  }
}

/** String fields of a small message by number. */
function fields(buf: Buffer): Record<number, string> {
  const out: Record<number, string> = {}
  let at = 0
  while (at < buf.length) {
    const [tag, p] = varint(buf, at)
    const [len, q] = varint(buf, p)
    out[Math.floor(tag / 8)] = buf.subarray(q, q + len).toString('utf8')
    at = q + len
  }
  return out
}
