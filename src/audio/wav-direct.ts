import { endianness } from 'node:os'
import type { WavInfo } from './wav-header.js'

const LITTLE_ENDIAN_HOST = endianness() === 'LE'

/**
 * The samples of a WAV that is already what the caller wants (16-bit integer PCM, mono, at `rate`), as a
 * view of the upload's own bytes: the most common ASR upload (16 kHz mono) then costs its size once instead
 * of twice, and skips the decoder worker. A data chunk at an odd offset is copied (an `Int16Array` view
 * must be aligned). `undefined` when the file needs decoding.
 */
export function pcm16AsIs(bytes: Uint8Array, wav: WavInfo, rate: number | undefined): Int16Array | undefined {
  const direct = LITTLE_ENDIAN_HOST && wav.codec === 0x0001 && wav.bitsPerSample === 16 && wav.channels === 1 &&
    wav.blockAlign === 2 && (rate === undefined || rate === wav.sampleRate)
  if (!direct) return undefined
  const count = Math.floor(wav.dataBytes / 2)
  const start = bytes.byteOffset + wav.dataOffset
  if (start % 2 === 0) return new Int16Array(bytes.buffer, start, count)
  // Uint8Array's slice copies; a Node Buffer's own slice would be a view of the whole body.
  return new Int16Array(Uint8Array.prototype.slice.call(bytes, wav.dataOffset, wav.dataOffset + count * 2).buffer)
}
