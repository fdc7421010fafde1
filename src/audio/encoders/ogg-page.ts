import { SpeechError } from '../../errors.js'

/**
 * Ogg pages (RFC 3533). The CRC is Ogg's own CRC-32: polynomial 0x04c11db7, initial value 0, no bit
 * reflection and no final XOR, which is not zlib's CRC-32.
 */
const CRC_TABLE = (() => {
  const table = new Uint32Array(256)
  for (let i = 0; i < 256; i++) {
    let r = i << 24
    for (let bit = 0; bit < 8; bit++) r = r & 0x80000000 ? (r << 1) ^ 0x04c11db7 : r << 1
    table[i] = r >>> 0
  }
  return table
})()

export function oggCrc(bytes: Uint8Array): number {
  let crc = 0
  for (let i = 0; i < bytes.length; i++) crc = ((crc << 8) ^ CRC_TABLE[((crc >>> 24) ^ bytes[i]!) & 0xff]!) >>> 0
  return crc
}

export const PAGE_BOS = 0x02
export const PAGE_EOS = 0x04

/** Most lacing values one page may carry (the segment count is a byte). */
export const MAX_SEGMENTS = 255

/** Lacing values a packet needs: one per full 255 bytes, then the remainder (possibly 0). */
export function segmentsFor(packetLength: number): number {
  return Math.floor(packetLength / 255) + 1
}

export interface OggPageInput {
  readonly flags: number
  /** Codec-defined position at the end of the last packet that completes on this page. */
  readonly granule: number
  readonly serial: number
  readonly sequence: number
  /** Whole packets only: this muxer never splits a packet across pages. */
  readonly packets: readonly Uint8Array[]
}

export function oggPage(input: OggPageInput): Uint8Array {
  let segments = 0
  let body = 0
  for (const p of input.packets) {
    segments += segmentsFor(p.length)
    body += p.length
  }
  if (segments > MAX_SEGMENTS) {
    throw new SpeechError('internal_error', `[opus] Ogg page needs ${segments} segments; the limit is 255`)
  }
  const page = new Uint8Array(27 + segments + body)
  const view = new DataView(page.buffer)
  page.set([0x4f, 0x67, 0x67, 0x53]) // 'OggS', version 0 follows
  page[5] = input.flags
  // int64 little-endian; positions stay far below 2^53.
  view.setUint32(6, input.granule % 0x100000000, true)
  view.setUint32(10, Math.floor(input.granule / 0x100000000), true)
  view.setUint32(14, input.serial, true)
  view.setUint32(18, input.sequence, true)
  page[26] = segments
  let lace = 27
  let data = 27 + segments
  for (const p of input.packets) {
    let left = p.length
    while (left >= 255) {
      page[lace++] = 255
      left -= 255
    }
    page[lace++] = left
    page.set(p, data)
    data += p.length
  }
  view.setUint32(22, oggCrc(page), true)
  return page
}
