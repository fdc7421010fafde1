import { invalidField } from '../../errors.js'
import type { AudioEncoder, EncoderOptions, EncoderSession } from '../types.js'
import { openLame } from './lame-wasm.js'
import { concatBytes } from '../signal.js'
import { assertSampleRate } from './s16le.js'

/** MPEG-1, -2 and -2.5 layer III rates; anything else is resampled by the pipeline. */
const MP3_RATES = [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000] as const
const LAME_CBR_KBPS = [8, 16, 24, 32, 40, 48, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320] as const
const DEFAULT_KBPS = 128

/** The highest bitrate the MPEG version at `sampleRate` defines; LAME would clamp silently anyway. */
export function maxMp3Kbps(sampleRate: number): number {
  if (sampleRate >= 32000) return 320
  return sampleRate >= 16000 ? 160 : 64
}

/**
 * The constant bitrate LAME will use, in kb/s. Accepts bits per second (the `EncoderOptions` unit, e.g.
 * 128000) and, leniently, kb/s as the API spells `mp3_bitrate` (128).
 */
export function mp3Kbps(bitrate: number | undefined, sampleRate: number): number {
  const kbps = bitrate === undefined ? DEFAULT_KBPS : bitrate > 320 ? bitrate / 1000 : bitrate
  if (!(LAME_CBR_KBPS as readonly number[]).includes(kbps)) {
    const msg = `[mp3] ${bitrate} is not an MP3 bitrate; use 64, 128 or 192 kb/s`
    throw invalidField(['body', 'mp3_bitrate'], msg)
  }
  return Math.min(kbps, maxMp3Kbps(sampleRate))
}

export const mp3Encoder: AudioEncoder = {
  format: 'mp3',
  contentType: 'audio/mpeg',
  sampleRates: MP3_RATES,
  defaultSampleRate: 44100,
  // LAME's priming (576 + 529) at every rate; a stream has no LAME tag telling decoders to drop it.
  delaySamples: 1105,
  create(options: EncoderOptions): EncoderSession {
    assertSampleRate('mp3', options.sampleRate)
    if (!(MP3_RATES as readonly number[]).includes(options.sampleRate)) {
      const msg = `[mp3] MP3 cannot carry ${options.sampleRate} Hz; use ${MP3_RATES.join(', ')}`
      throw invalidField(['body', 'sample_rate'], msg)
    }
    const lame = openLame(options.sampleRate, mp3Kbps(options.bitrate, options.sampleRate))
    return {
      push: (samples) => concatBytes(lame.encode(samples)),
      end: () => lame.finish(),
    }
  },
}
