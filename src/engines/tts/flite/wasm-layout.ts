/** Where a wasm module's read-only data (its `.rodata` segment) lands in linear memory. */
export interface ByteRange {
  readonly start: number
  readonly end: number
}

/**
 * Reads the data section and the segment names (the `name` section's subsection 9, which wasm-ld writes) of a
 * module's bytes. Undefined when the module does not say which segment is `.rodata`.
 */
export function readOnlyData(bytes: Uint8Array): ByteRange | undefined {
  let p = 8
  const u32 = (): number => {
    let result = 0
    let shift = 0
    for (;;) {
      const byte = bytes[p++]!
      result += (byte & 0x7f) * 2 ** shift
      if (!(byte & 0x80)) return result
      shift += 7
    }
  }
  const segments: (ByteRange | undefined)[] = []
  const names = new Map<number, string>()
  while (p < bytes.length) {
    const id = bytes[p++]!
    const size = u32()
    const end = p + size
    if (id === 11) {
      const count = u32()
      for (let i = 0; i < count; i++) {
        const flags = u32()
        if (flags === 2) u32() // memory index
        let offset: number | undefined
        if (flags !== 1) {
          // An active segment: its place is an `i32.const` expression (anything else has no fixed place).
          if (bytes[p] !== 0x41) return undefined
          p++
          offset = u32()
          if (bytes[p++] !== 0x0b) return undefined
        }
        const length = u32()
        segments.push(offset === undefined ? undefined : { start: offset, end: offset + length })
        p += length
      }
    } else if (id === 0) {
      const nameLength = u32()
      const section = new TextDecoder().decode(bytes.subarray(p, p + nameLength))
      p += nameLength
      while (section === 'name' && p < end) {
        const sub = bytes[p++]!
        const subEnd = u32() + p
        if (sub === 9) {
          const count = u32()
          for (let i = 0; i < count; i++) {
            const index = u32()
            const length = u32()
            names.set(index, new TextDecoder().decode(bytes.subarray(p, p + length)))
            p += length
          }
        }
        p = subEnd
      }
    }
    p = end
  }
  for (const [index, name] of names) if (name === '.rodata') return segments[index]
  return undefined
}
