import { SpeechError, invalidField } from '../../errors.js'
import { float32ToInt16 } from '../signal.js'
import type { AudioEncoder, EncoderOptions, EncoderSession } from '../types.js'
import { createOggOpusMuxer } from './ogg-opus-mux.js'
import { openOpus } from './opus-wasm.js'
import { concatBytes } from '../signal.js'

const OPUS_RATE = 48000
/** 20 ms frames: the usual trade of latency against per-packet overhead. */
const FRAME = 960
/** OPUS_AUTO: libopus picks the rate (about 50 kb/s for mono 48 kHz). */
export const OPUS_AUTO = -1000
/** The first audio pages leave with a single packet each so playback can start at once. */
const EAGER_PAGES = 2
/** Later pushes close a page once this many packets wait; fewer wait for the next push (at most 80 ms of
 * audio). Smaller pages cost 27+ bytes each: at 24 kb/s a page per 3 packets would add ~17 %. */
const MIN_PACKETS_PER_FLUSH = 5

export function opusBitrate(bitrate: number | undefined): number {
  if (bitrate === undefined || bitrate === OPUS_AUTO) return OPUS_AUTO
  if (!Number.isInteger(bitrate) || bitrate < 6000 || bitrate > 510_000) {
    const msg = `[opus] ${bitrate} is not an Opus bitrate; use -1000 (auto), 24000, 32000, 48000 or 64000`
    throw invalidField(['body', 'opus_bitrate'], msg)
  }
  return bitrate
}

/** Ogg Opus (RFC 7845), always 48 kHz mono in; pages are emitted while streaming. */
export const oggOpusEncoder: AudioEncoder = {
  format: 'opus',
  contentType: 'audio/ogg',
  sampleRates: [OPUS_RATE],
  defaultSampleRate: OPUS_RATE,
  create(options: EncoderOptions): EncoderSession {
    if (options.sampleRate !== OPUS_RATE) {
      const msg = `[opus] Ogg Opus is encoded at 48000 Hz, got ${options.sampleRate}; resample first`
      throw invalidField(['body', 'sample_rate'], msg)
    }
    const encoder = openOpus(OPUS_RATE, opusBitrate(options.bitrate), FRAME)
    const muxer = createOggOpusMuxer(encoder.lookahead, OPUS_RATE)
    const frame = new Int16Array(FRAME)
    let filled = 0
    let inputSamples = 0
    let encodedSamples = 0
    let started = false
    let ended = false

    const begin = (parts: Uint8Array[]): void => {
      if (ended) throw new SpeechError('internal_error', '[opus] encoder session used after end()')
      if (!started) parts.push(muxer.headers())
      started = true
    }
    const encodeFrame = (parts: Uint8Array[]): void => {
      parts.push(...muxer.add(encoder.encode(frame), FRAME))
      encodedSamples += FRAME
      filled = 0
    }

    return {
      push(samples) {
        const parts: Uint8Array[] = []
        begin(parts)
        const ints = float32ToInt16(samples)
        for (let i = 0; i < ints.length; ) {
          const take = Math.min(FRAME - filled, ints.length - i)
          frame.set(ints.subarray(i, i + take), filled)
          filled += take
          i += take
          if (filled === FRAME) encodeFrame(parts)
        }
        inputSamples += samples.length
        const threshold = muxer.audioPagesWritten < EAGER_PAGES ? 1 : MIN_PACKETS_PER_FLUSH
        if (muxer.pendingPackets >= threshold) parts.push(muxer.flush())
        return concatBytes(parts)
      },
      end() {
        const parts: Uint8Array[] = []
        begin(parts)
        ended = true
        try {
          // Encode until the decoder will have produced pre-skip + every input sample; the final
          // granule then trims the zero padding of the last frame.
          const target = encoder.lookahead + inputSamples
          while (encodedSamples < target) {
            frame.fill(0, filled)
            encodeFrame(parts)
          }
          parts.push(muxer.finish(target))
        } finally {
          encoder.close()
        }
        return concatBytes(parts)
      },
    }
  },
}
