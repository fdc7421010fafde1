import { createResampler } from '../../../audio/resample.js'
import { float32ToInt16, int16ToFloat32 } from '../../../audio/signal.js'
import type { Resampler } from '../../../audio/types.js'
import { SpeechError } from '../../../errors.js'

/** Rates a live session takes (16-bit mono PCM); recognition runs at 16 kHz. */
export const MIN_LIVE_RATE = 8000
export const MAX_LIVE_RATE = 48_000
export const DECODE_RATE = 16_000

export function checkLiveRate(rate: unknown, what: string): number {
  if (typeof rate !== 'number' || !Number.isInteger(rate) || rate < MIN_LIVE_RATE || rate > MAX_LIVE_RATE) {
    throw new SpeechError('bad_request', `${what} must be an integer from ${MIN_LIVE_RATE} to ${MAX_LIVE_RATE} Hz, got ${JSON.stringify(rate) ?? 'nothing'}`)
  }
  return rate
}

/** 16-bit little-endian mono PCM at the client's rate → 16 kHz samples, resampled once, as it arrives. */
export class LiveInput {
  readonly rate: number
  readonly #resampler: Resampler

  constructor(rate: number) {
    this.rate = rate
    this.#resampler = createResampler(checkLiveRate(rate, 'the input sample rate'), DECODE_RATE)
  }

  /** One frame of audio; a frame cut inside a sample (odd length) is refused. */
  push(bytes: Uint8Array): Int16Array {
    if (bytes.length % 2 !== 0) {
      throw new SpeechError('bad_request', `audio frames must hold whole 16-bit samples (an even number of bytes), got ${bytes.length} bytes`)
    }
    const pcm = new Int16Array(bytes.length / 2)
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    for (let i = 0; i < pcm.length; i++) pcm[i] = view.getInt16(i * 2, true)
    if (this.rate === DECODE_RATE) return pcm
    return float32ToInt16(this.#resampler.process(int16ToFloat32(pcm)))
  }
}
