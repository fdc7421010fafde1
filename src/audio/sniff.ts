/**
 * Container and codec detection from magic bytes, done before any decoder runs: it picks the decoder,
 * names the format in results, and turns "not audio at all" into a message the user can act on.
 */
export type Sniffed =
  /** `decoder` is the `audio-decode` format key; `format` is Parla's label. */
  | { readonly kind: 'audio'; readonly format: string; readonly decoder: string }
  | { readonly kind: 'not-audio'; readonly looksLike: string }
  | { readonly kind: 'unsupported'; readonly what: string }
  | { readonly kind: 'unknown' }

const startsWith = (b: Uint8Array, sig: readonly number[], at = 0): boolean =>
  b.length >= at + sig.length && sig.every((v, i) => b[at + i] === v)
const ascii = (b: Uint8Array, at: number, text: string): boolean =>
  startsWith(b, [...text].map((c) => c.charCodeAt(0)), at)

/** Non-audio files people upload by mistake; checked first so they never reach a decoder. */
const NOT_AUDIO: readonly { readonly test: (b: Uint8Array) => boolean; readonly name: string }[] = [
  { test: (b) => startsWith(b, [0x89, 0x50, 0x4e, 0x47]), name: 'a PNG image' },
  { test: (b) => startsWith(b, [0xff, 0xd8, 0xff]), name: 'a JPEG image' },
  { test: (b) => ascii(b, 0, 'GIF8'), name: 'a GIF image' },
  { test: (b) => ascii(b, 0, 'RIFF') && ascii(b, 8, 'WEBP'), name: 'a WebP image' },
  { test: (b) => ascii(b, 0, 'RIFF') && ascii(b, 8, 'AVI '), name: 'an AVI video' },
  { test: (b) => ascii(b, 0, '%PDF'), name: 'a PDF document' },
  { test: (b) => startsWith(b, [0x50, 0x4b, 0x03, 0x04]), name: 'a ZIP archive (or an Office document)' },
  { test: (b) => startsWith(b, [0x1f, 0x8b]), name: 'a gzip archive' },
  { test: (b) => startsWith(b, [0x37, 0x7a, 0xbc, 0xaf]), name: 'a 7-Zip archive' },
  { test: (b) => ascii(b, 0, 'MThd'), name: 'a MIDI file (notes, not recorded audio)' },
  { test: (b) => startsWith(b, [0x7f, 0x45, 0x4c, 0x46]) || ascii(b, 0, 'MZ'), name: 'a program' },
  { test: (b) => ascii(b, 0, 'SQLite format 3'), name: 'an SQLite database' },
]

export function sniffAudio(b: Uint8Array): Sniffed {
  for (const entry of NOT_AUDIO) if (entry.test(b)) return { kind: 'not-audio', looksLike: entry.name }
  if (ascii(b, 0, 'RIFF') && ascii(b, 8, 'WAVE')) return { kind: 'audio', format: 'wav', decoder: 'wav' }
  if (ascii(b, 0, 'RF64')) return { kind: 'unsupported', what: 'an RF64 (64-bit WAV) file' }
  if (ascii(b, 0, 'OggS')) return sniffOgg(b)
  if (ascii(b, 0, 'fLaC')) return { kind: 'audio', format: 'flac', decoder: 'flac' }
  if (ascii(b, 4, 'ftyp')) return sniffMp4(b)
  if (startsWith(b, [0x1a, 0x45, 0xdf, 0xa3])) return sniffMatroska(b)
  if (ascii(b, 0, 'FORM') && (ascii(b, 8, 'AIFF') || ascii(b, 8, 'AIFC'))) {
    return { kind: 'audio', format: 'aiff', decoder: 'aiff' }
  }
  if (ascii(b, 0, 'caff')) return { kind: 'audio', format: 'caf', decoder: 'caf' }
  const mpeg = sniffMpeg(b)
  if (mpeg) return mpeg
  const text = describeText(b)
  return text ? { kind: 'not-audio', looksLike: text } : { kind: 'unknown' }
}

function sniffOgg(b: Uint8Array): Sniffed {
  // First page: 27-byte header, lacing table, then the first packet, whose magic names the codec.
  const segments = b[26] ?? 0
  const packet = 27 + segments
  if (ascii(b, packet, 'OpusHead')) return { kind: 'audio', format: 'ogg-opus', decoder: 'opus' }
  if (startsWith(b, [0x01], packet) && ascii(b, packet + 1, 'vorbis')) {
    return { kind: 'audio', format: 'ogg-vorbis', decoder: 'oga' }
  }
  if (startsWith(b, [0x7f], packet) && ascii(b, packet + 1, 'FLAC')) {
    return { kind: 'audio', format: 'ogg-flac', decoder: 'flac' }
  }
  if (ascii(b, packet, 'Speex   ')) return { kind: 'unsupported', what: 'Ogg Speex' }
  if (startsWith(b, [0x80], packet) && ascii(b, packet + 1, 'theora')) {
    return { kind: 'unsupported', what: 'an Ogg Theora video' }
  }
  return { kind: 'unsupported', what: 'an Ogg file with an unknown codec' }
}

function sniffMp4(b: Uint8Array): Sniffed {
  if (ascii(b, 8, 'M4A ') || ascii(b, 8, 'M4B ')) return { kind: 'audio', format: 'm4a', decoder: 'm4a' }
  if (ascii(b, 8, 'qt  ')) return { kind: 'audio', format: 'mov', decoder: 'm4a' }
  if (ascii(b, 8, 'heic') || ascii(b, 8, 'avif') || ascii(b, 8, 'mif1')) {
    return { kind: 'not-audio', looksLike: 'an image (HEIF/AVIF)' }
  }
  return { kind: 'audio', format: 'mp4', decoder: 'm4a' }
}

function sniffMatroska(b: Uint8Array): Sniffed {
  const head = new TextDecoder('latin1').decode(b.subarray(0, 64))
  if (head.includes('webm')) return { kind: 'audio', format: 'webm', decoder: 'webm' }
  return { kind: 'audio', format: 'mkv', decoder: 'mkv' }
}

/** MPEG audio frame header: version, layer, bitrate and rate indices all valid. Layer 0 is ADTS AAC. */
function mpegFrameAt(b: Uint8Array, at: number): 'mp3' | 'aac' | undefined {
  if (b[at] !== 0xff || ((b[at + 1] ?? 0) & 0xe0) !== 0xe0) return undefined
  const b1 = b[at + 1]!
  const b2 = b[at + 2] ?? 0xff
  if ((b1 & 0x06) === 0) return (b1 & 0xf6) === 0xf0 && ((b2 >> 2) & 0x0f) < 13 ? 'aac' : undefined
  if (((b1 >> 3) & 0x03) === 1) return undefined // reserved version
  if (b2 >> 4 === 0x0f || ((b2 >> 2) & 0x03) === 3) return undefined // bad bitrate / rate index
  return 'mp3'
}

function sniffMpeg(b: Uint8Array): Sniffed | undefined {
  let at = 0
  if (ascii(b, 0, 'ID3') && b.length >= 10) {
    // ID3v2: synchsafe size, plus a 10-byte footer when flagged; audio (MP3, sometimes AAC/FLAC) follows.
    at = 10 + (((b[6]! & 0x7f) << 21) | ((b[7]! & 0x7f) << 14) | ((b[8]! & 0x7f) << 7) | (b[9]! & 0x7f))
    if (b[5]! & 0x10) at += 10
    if (ascii(b, at, 'fLaC')) return { kind: 'audio', format: 'flac', decoder: 'flac' }
    // Some taggers pad after the tag: look a little further for the first frame.
    const limit = Math.min(b.length - 4, at + 4096)
    while (at < limit && b[at] !== 0xff) at++
  }
  const frame = mpegFrameAt(b, at)
  if (frame === 'mp3') return { kind: 'audio', format: 'mp3', decoder: 'mp3' }
  if (frame === 'aac') return { kind: 'audio', format: 'aac', decoder: 'aac' }
  return undefined
}

/** Names what a text upload looks like, or undefined if the bytes are not text. */
function describeText(b: Uint8Array): string | undefined {
  const head = b.subarray(0, 1024)
  if (head.length === 0 || head.includes(0)) return undefined
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(head.length < b.length ? trimUtf8(head) : head)
  } catch {
    return undefined
  }
  let printable = 0
  for (const ch of text) if (ch >= ' ' || ch === '\n' || ch === '\r' || ch === '\t') printable++
  if (printable < text.length * 0.95) return undefined
  const t = text.trimStart()
  if (t.startsWith('data:')) return 'a data: URL; send the raw file bytes instead'
  if (t.startsWith('{') || t.startsWith('[')) return 'JSON'
  if (t.startsWith('<')) return 'HTML or XML'
  if (/^[A-Za-z0-9+/=\r\n]+$/.test(t) && t.length >= 16) return 'base64 text; send the raw file bytes instead'
  return 'plain text'
}

/** Drops a UTF-8 sequence cut at the end of a prefix so strict decoding does not reject real text. */
function trimUtf8(b: Uint8Array): Uint8Array {
  const end = b.length
  for (let i = 1; i <= 3 && end - i >= 0; i++) {
    const byte = b[end - i]!
    if ((byte & 0xc0) === 0xc0) return b.subarray(0, end - i)
    if ((byte & 0x80) === 0) break
  }
  return b.subarray(0, end)
}
