/**
 * MP4 sample tables declare their entry counts; the decoder allocates arrays of that length before reading.
 * A corrupted count (up to 2^32) made it allocate until the process died, so counts are checked against the
 * bytes that could hold them before the file reaches the decoder.
 */
const CONTAINERS = new Set(['moov', 'trak', 'mdia', 'minf', 'stbl', 'edts', 'mvex', 'moof', 'traf', 'udta'])

const r32 = (b: Uint8Array, at: number): number =>
  ((b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!) >>> 0
const type4 = (b: Uint8Array, at: number): string =>
  String.fromCharCode(b[at]!, b[at + 1]!, b[at + 2]!, b[at + 3]!)

/** Bytes per entry of the count-prefixed tables (count at body offset 4, entries from 8; stsz from 12). */
const TABLES: Readonly<Record<string, { readonly first: number; readonly entry: number }>> = {
  stco: { first: 8, entry: 4 },
  co64: { first: 8, entry: 8 },
  stsc: { first: 8, entry: 12 },
  stts: { first: 8, entry: 8 },
  ctts: { first: 8, entry: 8 },
  stss: { first: 8, entry: 4 },
}

/** Returns a sentence naming the damage, or undefined when every table fits its box. */
export function checkMp4Tables(bytes: Uint8Array): string | undefined {
  return walk(bytes, 0, bytes.length, bytes.length, 0)
}

function walk(b: Uint8Array, start: number, end: number, fileLength: number, depth: number): string | undefined {
  if (depth > 16) return 'its boxes are nested too deeply'
  for (let at = start; at + 8 <= end; ) {
    let size = r32(b, at)
    const type = type4(b, at + 4)
    let header = 8
    if (size === 1) {
      if (at + 16 > end) return undefined
      size = r32(b, at + 8) * 2 ** 32 + r32(b, at + 12)
      header = 16
    } else if (size === 0) size = end - at
    if (size < header) return `its ${type} box has an impossible size`
    const bodyEnd = Math.min(end, at + size)
    const body = at + header
    if (CONTAINERS.has(type)) {
      const problem = walk(b, body, bodyEnd, fileLength, depth + 1)
      if (problem) return problem
    } else if (body + 12 <= bodyEnd || (type !== 'mdat' && body + 8 <= bodyEnd)) {
      const problem = checkLeaf(b, type, body, bodyEnd, fileLength)
      if (problem) return problem
    }
    at += size
  }
  return undefined
}

function checkLeaf(b: Uint8Array, type: string, body: number, end: number, fileLength: number) {
  const available = end - body
  const table = TABLES[type]
  if (table) {
    const count = r32(b, body + 4)
    if (table.first + count * table.entry > available) return `its ${type} table claims ${count} entries`
  } else if (type === 'stsz' && available >= 12) {
    const sampleSize = r32(b, body + 4)
    const count = r32(b, body + 8)
    const fits = sampleSize === 0 ? 12 + count * 4 <= available : count * sampleSize <= fileLength
    if (!fits) return `its stsz table claims ${count} samples`
  } else if (type === 'trun') {
    const flags = r32(b, body) & 0xffffff
    const count = r32(b, body + 4)
    let entry = 0
    for (const bit of [0x100, 0x200, 0x400, 0x800]) if (flags & bit) entry += 4
    if (count * Math.max(entry, 8) > fileLength) return `its trun table claims ${count} samples`
  }
  return undefined
}
