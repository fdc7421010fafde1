import { detect } from 'tinyld'

/** Image types a cover may be, by magic number. */
const IMAGES = [
  { type: 'image/png', ext: 'png', test: (b: Uint8Array) => b[0] === 0x89 && ascii(b, 1, 4) === 'PNG' },
  { type: 'image/jpeg', ext: 'jpg', test: (b: Uint8Array) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff },
  { type: 'image/gif', ext: 'gif', test: (b: Uint8Array) => ascii(b, 0, 4) === 'GIF8' },
  { type: 'image/webp', ext: 'webp', test: (b: Uint8Array) => ascii(b, 0, 4) === 'RIFF' && ascii(b, 8, 12) === 'WEBP' },
] as const

const ascii = (b: Uint8Array, from: number, to: number) => String.fromCharCode(...b.subarray(from, to))

/** The image's media type and file extension, or null when the bytes are not a PNG, JPEG, GIF or WebP. */
export function sniffImage(bytes: Uint8Array): { type: string; ext: string } | null {
  const hit = IMAGES.find((i) => bytes.length >= 12 && i.test(bytes))
  return hit ? { type: hit.type, ext: hit.ext } : null
}

/** Decoder format names (`src/audio/sniff.ts`) → media type and file extension. */
const AUDIO_MEDIA: Record<string, { type: string; ext: string }> = {
  wav: { type: 'audio/wav', ext: 'wav' },
  mp3: { type: 'audio/mpeg', ext: 'mp3' },
  'ogg-opus': { type: 'audio/ogg', ext: 'opus' },
  'ogg-vorbis': { type: 'audio/ogg', ext: 'ogg' },
  flac: { type: 'audio/flac', ext: 'flac' },
  m4a: { type: 'audio/mp4', ext: 'm4a' },
  mp4: { type: 'audio/mp4', ext: 'mp4' },
  mov: { type: 'video/quicktime', ext: 'mov' },
  webm: { type: 'audio/webm', ext: 'webm' },
  aiff: { type: 'audio/aiff', ext: 'aiff' },
}

/** Media type and a blob-key-safe extension for a decoded format name. */
export function audioMedia(format: string): { type: string; ext: string } {
  const ext = format.toLowerCase().replace(/[^a-z0-9]/g, '').slice(0, 8) || 'bin'
  return AUDIO_MEDIA[format] ?? { type: 'application/octet-stream', ext }
}

/** Lower-case ISO 639-1 code of the text's language, or '' when the text is too short or unclear. */
export function detectLanguage(text: string): string {
  const trimmed = text.trim()
  if (trimmed.length < 3) return ''
  return detect(trimmed).toLowerCase()
}
