/**
 * `@audio/decode-webm` decodes every Opus frame of a feed one at a time and concatenates the results one by
 * one (quadratic) as soon as the feed holds a DiscardPadding element, which ffmpeg and browsers write on the
 * last block of every WebM/Opus file: a 98 s file took 22 s and a 10-minute one would take many minutes.
 * So before decoding, DiscardPadding elements become Void elements of the same length (the decoder then
 * takes its fast path), and the caller trims the padding from the end of the decoded audio itself.
 */

const SEGMENT = 0x18538067
const CLUSTER = 0x1f43b675
const BLOCK_GROUP = 0xa0
const DISCARD_PADDING = 0x75a2
const VOID = 0xec

/** An EBML element id (marker bits kept, as the ids are usually written) and its length in bytes. */
function readId(b: Uint8Array, at: number): { value: number, length: number } | undefined {
  const first = b[at]
  if (first === undefined || first === 0) return undefined
  const length = Math.clz32(first) - 23
  if (length > 4 || at + length > b.length) return undefined
  let value = 0
  for (let i = 0; i < length; i++) value = value * 256 + b[at + i]!
  return { value, length }
}

/** An EBML size; `value` is -1 for "unknown" (all ones, used for live-written segments and clusters). */
function readSize(b: Uint8Array, at: number): { value: number, length: number } | undefined {
  const first = b[at]
  if (first === undefined || first === 0) return undefined
  const length = Math.clz32(first) - 23
  if (at + length > b.length) return undefined
  let value = first & (0xff >> length)
  let allOnes = value === 0xff >> length
  for (let i = 1; i < length; i++) {
    value = value * 256 + b[at + i]!
    allOnes &&= b[at + i] === 0xff
  }
  return { value: allOnes ? -1 : value, length }
}

export interface NeutralizedPadding {
  /** The input, or a patched copy when it held DiscardPadding elements. */
  readonly bytes: Uint8Array
  /** Total positive DiscardPadding, nanoseconds: audio to cut from the end after decoding. */
  readonly discardNs: number
}

/** Replaces every DiscardPadding element (inside block groups) by a Void element; never modifies `bytes`. */
export function neutralizeDiscardPadding(bytes: Uint8Array): NeutralizedPadding {
  let out: Uint8Array | undefined
  let discardNs = 0
  for (let at = 0; at < bytes.length;) {
    const id = readId(bytes, at)
    const size = id && readSize(bytes, at + id.length)
    if (!id || !size) break
    const body = at + id.length + size.length
    // Masters whose children matter: step inside (this also copes with unknown sizes).
    if (id.value === SEGMENT || id.value === CLUSTER || id.value === BLOCK_GROUP) {
      at = body
      continue
    }
    if (size.value < 0 || body + size.value > bytes.length) break
    if (id.value === DISCARD_PADDING && size.length < 8 && size.value <= 8) {
      let ns = size.value > 0 && bytes[body]! & 0x80 ? -1 : 0
      for (let i = 0; i < size.value; i++) ns = ns * 256 + bytes[body + i]!
      if (ns > 0) discardNs += ns
      out ??= bytes.slice()
      // Void's id is one byte shorter than DiscardPadding's, so its size is written one byte longer.
      const sizeLength = size.length + 1
      out[at] = VOID
      out[at + 1] = 0x80 >> (sizeLength - 1)
      for (let i = 1; i < sizeLength; i++) out[at + 1 + i] = i === sizeLength - 1 ? size.value : 0
    }
    at = body + size.value
  }
  return { bytes: out ?? bytes, discardNs }
}
