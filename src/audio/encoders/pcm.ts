import type { AudioEncoder, EncoderOptions, EncoderSession } from '../types.js'
import { assertSampleRate, toS16le } from './s16le.js'

/** Raw signed 16-bit little-endian mono; the client must know the rate it asked for. */
export const pcmEncoder: AudioEncoder = {
  format: 'pcm',
  contentType: 'audio/pcm',
  defaultSampleRate: 44100,
  create(options: EncoderOptions): EncoderSession {
    assertSampleRate('pcm', options.sampleRate)
    return {
      push: (samples) => toS16le(samples),
      end: () => new Uint8Array(0),
    }
  },
}
