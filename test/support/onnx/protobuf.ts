/**
 * The few protobuf wire-format pieces the ONNX writer needs: varints, length-delimited fields, packed
 * repeated numbers. Written from the protobuf encoding spec (developers.google.com/protocol-buffers).
 */
export type Field = Uint8Array

const varint = (value: bigint | number): number[] => {
  let v = BigInt.asUintN(64, BigInt(value))
  const out: number[] = []
  do {
    let byte = Number(v & 0x7fn)
    v >>= 7n
    if (v !== 0n) byte |= 0x80
    out.push(byte)
  } while (v !== 0n)
  return out
}

const key = (field: number, wire: number) => varint((field << 3) | wire)

export const concat = (parts: readonly Uint8Array[]): Uint8Array => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const p of parts) {
    out.set(p, at)
    at += p.length
  }
  return out
}

/** A varint field (int32, int64, enum). */
export const int = (field: number, value: bigint | number): Field => Uint8Array.from([...key(field, 0), ...varint(value)])

/** A length-delimited field: bytes, a string or an embedded message. */
export const bytes = (field: number, value: Uint8Array | string): Field => {
  const body = typeof value === 'string' ? new TextEncoder().encode(value) : value
  return concat([Uint8Array.from([...key(field, 2), ...varint(body.length)]), body])
}

/** An embedded message built from fields. */
export const message = (field: number, fields: readonly Field[]): Field => bytes(field, concat(fields))

/** A 32-bit float field. */
export const float = (field: number, value: number): Field => {
  const body = new Uint8Array(4)
  new DataView(body.buffer).setFloat32(0, value, true)
  return concat([Uint8Array.from(key(field, 5)), body])
}

/** Packed repeated int64. */
export const packedInts = (field: number, values: readonly number[]): Field => bytes(field, Uint8Array.from(values.flatMap((v) => varint(v))))

/** Packed repeated float. */
export const packedFloats = (field: number, values: readonly number[]): Field => {
  const body = new Uint8Array(values.length * 4)
  const view = new DataView(body.buffer)
  values.forEach((v, i) => view.setFloat32(i * 4, v, true))
  return bytes(field, body)
}
