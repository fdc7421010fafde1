import { open, type FileHandle } from 'node:fs/promises'

/** One graph input or output: its name and shape (a number for a fixed size, a name for a dynamic one). */
export interface OnnxValue {
  readonly name: string
  readonly dims: readonly (number | string)[]
}

/**
 * The inputs and outputs of an ONNX file's graph (ModelProto.graph, fields 11 and 12), read without loading
 * the weights: the walk reads field headers and skips nodes and initializers by their lengths. Rejects when
 * the file is not a whole ONNX model (cut short, or not protobuf), like `readOnnxMetadata`.
 */
export async function readOnnxSignature(path: string): Promise<{ inputs: OnnxValue[]; outputs: OnnxValue[] }> {
  const file = await open(path, 'r')
  try {
    const size = (await file.stat()).size
    const inputs: OnnxValue[] = []
    const outputs: OnnxValue[] = []
    await walk(file, 0, size, path, async (field, at, len) => {
      if (field !== 7) return
      await walk(file, at, at + len, path, async (inner, start, length) => {
        if (inner !== 11 && inner !== 12) return
        const body = Buffer.alloc(length)
        await file.read(body, 0, length, start)
        ;(inner === 11 ? inputs : outputs).push(valueInfo(body))
      })
    })
    return { inputs, outputs }
  } finally {
    await file.close()
  }
}

/** Calls `onField` with each length-delimited field of the message in [from, to); other wire types are skipped. */
async function walk(file: FileHandle, from: number, to: number, path: string, onField: (field: number, at: number, len: number) => Promise<void>): Promise<void> {
  const head = Buffer.alloc(20)
  let at = from
  while (at < to) {
    const { bytesRead } = await file.read(head, 0, Math.min(head.length, to - at), at)
    const view = head.subarray(0, bytesRead)
    let [tag, p] = varint(view, 0)
    const wire = tag & 7
    if (wire === 0) { p = varint(view, p)[1]; at += p; continue }
    if (wire === 5) { at += p + 4; continue }
    if (wire === 1) { at += p + 8; continue }
    if (wire !== 2) throw new Error(`${path} is not an ONNX model (unexpected protobuf field at byte ${at})`)
    const [len, q] = varint(view, p)
    if (at + q + len > to) throw new Error(`${path} is not an ONNX model (truncated)`)
    await onField(Math.floor(tag / 8), at + q, len)
    at += q + len
  }
  if (at !== to) throw new Error(`${path} is not an ONNX model (truncated)`)
}

/** ValueInfoProto: name (1), type (2) → tensor_type (1) → shape (2) → dim (1) → dim_value (1) | dim_param (2). */
function valueInfo(buf: Buffer): OnnxValue {
  let name = ''
  const dims: (number | string)[] = []
  for (const [field, value] of messageFields(buf)) {
    if (field === 1 && Buffer.isBuffer(value)) name = value.toString('utf8')
    if (field !== 2 || !Buffer.isBuffer(value)) continue
    for (const [f1, tensor] of messageFields(value)) {
      if (f1 !== 1 || !Buffer.isBuffer(tensor)) continue
      for (const [f2, shape] of messageFields(tensor)) {
        if (f2 !== 2 || !Buffer.isBuffer(shape)) continue
        for (const [f3, dim] of messageFields(shape)) {
          if (f3 !== 1 || !Buffer.isBuffer(dim)) continue
          const parts = messageFields(dim)
          const fixed = parts.find(([f]) => f === 1)?.[1]
          const param = parts.find(([f]) => f === 2)?.[1]
          dims.push(typeof fixed === 'number' ? fixed : Buffer.isBuffer(param) ? param.toString('utf8') : '?')
        }
      }
    }
  }
  return { name, dims }
}

/** The fields of a small message held in memory: varints as numbers, length-delimited fields as bytes. */
function messageFields(buf: Buffer): [number, number | Buffer][] {
  const out: [number, number | Buffer][] = []
  let at = 0
  while (at < buf.length) {
    const [tag, p] = varint(buf, at)
    const wire = tag & 7
    if (wire === 0) {
      const [value, q] = varint(buf, p)
      out.push([tag >> 3, value])
      at = q
    } else if (wire === 2) {
      const [len, q] = varint(buf, p)
      out.push([tag >> 3, buf.subarray(q, q + len)])
      at = q + len
    } else if (wire === 5) at = p + 4
    else if (wire === 1) at = p + 8
    else throw new Error('unexpected protobuf wire type')
  }
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
