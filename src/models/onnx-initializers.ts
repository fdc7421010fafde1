import { open, type FileHandle } from 'node:fs/promises'

/** One weight of an ONNX graph as its file describes it, without its data. */
export interface OnnxInitializer {
  readonly name: string
  readonly dims: readonly number[]
  /** Where its data lives when saved as external data (`location` of `external_data`, relative to the model). */
  readonly location?: string
}

// Protobuf field numbers (onnx/onnx.proto3): ModelProto.graph, GraphProto.initializer, TensorProto's fields.
const MODEL_GRAPH = 7
const GRAPH_INITIALIZER = 5
const TENSOR_DIMS = 1
const TENSOR_NAME = 8
const TENSOR_EXTERNAL_DATA = 13

/**
 * Lists a model's initializers (name, shape, external data file) by walking the protobuf's field headers and
 * skipping the weights' bytes, so a 60 MB model costs a few thousand small reads, not a load. Throws when the
 * file is not a complete protobuf message (truncated or not ONNX).
 */
export async function readOnnxInitializers(path: string): Promise<OnnxInitializer[]> {
  const handle = await open(path, 'r')
  try {
    const size = (await handle.stat()).size
    const file = new Reader(handle)
    const out: OnnxInitializer[] = []
    await walk(file, 0, size, path, async (field, start, end) => {
      if (field !== MODEL_GRAPH) return
      await walk(file, start, end, path, async (graphField, s, e) => {
        if (graphField === GRAPH_INITIALIZER) out.push(await tensor(file, s, e, path))
      })
    })
    return out
  } finally {
    await handle.close()
  }
}

/** Reads through a 64 KiB window: the graph's thousands of small node headers cost a few reads. */
class Reader {
  #window = Buffer.alloc(0)
  #start = 0
  constructor(private readonly file: FileHandle) {}

  async bytes(at: number, length: number): Promise<Buffer> {
    if (at < this.#start || at + length > this.#start + this.#window.length) {
      const buf = Buffer.alloc(Math.max(length, 65_536))
      const { bytesRead } = await this.file.read(buf, 0, buf.length, at)
      this.#window = buf.subarray(0, bytesRead)
      this.#start = at
    }
    return this.#window.subarray(at - this.#start, Math.min(at - this.#start + length, this.#window.length))
  }
}

async function tensor(file: Reader, start: number, end: number, path: string): Promise<OnnxInitializer> {
  const dims: number[] = []
  let name = ''
  let location: string | undefined
  await walk(file, start, end, path, async (field, s, e, value) => {
    if (field === TENSOR_DIMS) {
      if (value !== undefined) return void dims.push(value)
      // Packed: the dimensions one after another.
      const bytes = await read(file, s, e - s)
      for (let at = 0; at < bytes.length;) {
        const [dim, next] = varint(bytes, at)
        dims.push(dim)
        at = next
      }
    } else if (field === TENSOR_NAME) {
      name = (await read(file, s, e - s)).toString('utf8')
    } else if (field === TENSOR_EXTERNAL_DATA) {
      const entry = strings(await read(file, s, e - s))
      if (entry[1] === 'location') location = entry[2]
    }
  }, TENSOR_DIMS)
  return { name, dims, ...(location !== undefined && { location }) }
}

/**
 * Calls `visit` for each field in [start, end): length-delimited fields with their byte range, varints (of
 * `varintField`) with their value. Fixed-size fields are skipped.
 */
async function walk(file: Reader, start: number, end: number, path: string,
  visit: (field: number, start: number, end: number, value?: number) => Promise<void>, varintField = -1): Promise<void> {
  let at = start
  while (at < end) {
    const bytes = await file.bytes(at, Math.min(20, end - at))
    const [tag, p] = varint(bytes, 0, path)
    const field = Math.floor(tag / 8)
    const wire = tag & 7
    if (wire === 0) {
      const [value, q] = varint(bytes, p, path)
      if (field === varintField) await visit(field, at + p, at + q, value)
      at += q
    } else if (wire === 1) at += p + 8
    else if (wire === 5) at += p + 4
    else if (wire === 2) {
      const [len, q] = varint(bytes, p, path)
      if (at + q + len > end) throw new Error(`${path} is truncated or damaged (a field at byte ${at} ends past the end)`)
      await visit(field, at + q, at + q + len)
      at += q + len
    } else throw new Error(`${path} is not an ONNX model (unexpected protobuf field at byte ${at})`)
  }
  if (at !== end) throw new Error(`${path} is truncated or damaged (its last field ends past the end)`)
}

const read = (file: Reader, at: number, length: number) => file.bytes(at, length)

function varint(buf: Buffer, at: number, path = 'protobuf'): [number, number] {
  let value = 0
  let scale = 1
  for (;;) {
    if (at >= buf.length) throw new Error(`${path} is truncated or damaged (a varint runs past its end)`)
    const b = buf[at++]!
    value += (b & 0x7f) * scale
    scale *= 128
    if (b < 0x80) return [value, at]
  }
}

/** The string fields of a small message (a StringStringEntryProto), by number. */
function strings(buf: Buffer): Record<number, string> {
  const out: Record<number, string> = {}
  for (let at = 0; at < buf.length;) {
    const [tag, p] = varint(buf, at)
    if ((tag & 7) !== 2) throw new Error('unexpected field in an external_data entry')
    const [len, q] = varint(buf, p)
    out[Math.floor(tag / 8)] = buf.subarray(q, q + len).toString('utf8')
    at = q + len
  }
  return out
}
