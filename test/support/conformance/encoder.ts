/**
 * The contract every audio encoder keeps (`AudioEncoder` in src/audio/types.ts), checked against ffmpeg as
 * an independent decoder, as one suite each encoder runs with the rates and bitrates it carries:
 * a valid stream at the asked rate, the input's length (exact, or within `maxExtraSamples` for codecs that
 * pad), level and waveform kept, the asked bitrate (±20 %), streamed pushes decoding like one push, a stream
 * with no audio still valid, and interleaved sessions independent of each other.
 */
import { describe, expect, it } from 'vitest'
import { rms } from '../../../src/audio/signal.js'
import type { AudioEncoder } from '../../../src/audio/types.js'
import { bestCorrelation, concatBytes, ffmpegDecode, ffprobe, irregularBlocks, speechLike, sweep } from '../audio.js'

export interface EncoderCase {
  readonly rate: number
  readonly bitrate?: number
  /** Expected bitrate in bits per second, checked within ±20 %. */
  readonly expectBps?: number
}

export interface EncoderConformanceOptions {
  readonly encoder: AudioEncoder
  /** ffprobe's `codec_name` for the stream. */
  readonly codec: string
  readonly cases: readonly EncoderCase[]
  /** Samples a decoder may output beyond the input (frame padding, priming); 0: exact length. */
  readonly maxExtraSamples?: (rate: number) => number
  /** Headerless formats: how ffmpeg should read them. */
  readonly rawInput?: (rate: number) => readonly string[]
  /** Lossless formats: a stream pushed in pieces is byte-identical to one push (else: decodes the same). */
  readonly byteIdentical?: boolean
  /** Cases the encoder cannot meet, with the reason (shown in the test name). */
  readonly skip?: { readonly empty?: string }
}

/** 1 s of speech-like bursts, then a 1 s sweep 80 Hz -> 8 kHz (capped below Nyquist). */
export function testSignal(rate: number): Float32Array {
  const speech = speechLike(1, rate, rate)
  const tone = sweep(80, Math.min(8000, rate * 0.4), 1, rate, 0.4)
  const out = new Float32Array(speech.length + tone.length)
  out.set(speech)
  out.set(tone, speech.length)
  return out
}

export function encodeBlocks(encoder: AudioEncoder, sampleRate: number, bitrate: number | undefined, blocks: readonly Float32Array[]): Uint8Array {
  const session = encoder.create({ sampleRate, ...(bitrate !== undefined && { bitrate }) })
  const parts = blocks.map((b) => session.push(b))
  parts.push(session.end())
  return concatBytes(parts)
}

export function runEncoderConformance(o: EncoderConformanceOptions): void {
  const { encoder } = o
  const raw = (rate: number) => [...(o.rawInput?.(rate) ?? [])]
  const lossless = o.maxExtraSamples === undefined

  describe.concurrent(`${encoder.format}: encoder conformance`, () => {
    for (const c of o.cases) {
      it(`${c.rate} Hz, bitrate ${c.bitrate ?? 'default'}: valid stream, length, level, waveform, bitrate`, async () => {
        const input = testSignal(c.rate)
        const bytes = encodeBlocks(encoder, c.rate, c.bitrate, irregularBlocks(input, c.rate))
        const stream = (await ffprobe(bytes, raw(c.rate))).streams[0]!
        expect(stream.codec_name).toBe(o.codec)
        expect(Number(stream.sample_rate)).toBe(c.rate)
        expect(stream.channels).toBe(1)
        const decoded = await ffmpegDecode(bytes, raw(c.rate))
        expect(decoded.length - input.length).toBeGreaterThanOrEqual(0)
        expect(decoded.length - input.length).toBeLessThanOrEqual(o.maxExtraSamples?.(c.rate) ?? 0)
        const level = rms(decoded) / rms(input)
        expect(level).toBeGreaterThan(0.7)
        expect(level).toBeLessThan(1.3)
        // The waveform survives: a speech-like stretch correlates with the input (after any codec delay).
        const maxLag = o.maxExtraSamples?.(c.rate) ?? 0
        const window = bestCorrelation(input, decoded, Math.round(c.rate * 0.3), Math.round(c.rate * 0.2), maxLag)
        expect(window.r).toBeGreaterThan(lossless ? 0.9999 : 0.9)
        if (c.expectBps) {
          const bps = (bytes.length * 8) / (input.length / c.rate)
          expect(bps / c.expectBps).toBeGreaterThan(0.8)
          expect(bps / c.expectBps).toBeLessThan(1.2)
        }
      })
    }

    it('pushed in irregular pieces, decodes to the same audio as one push', async () => {
      const rate = o.cases[0]!.rate
      const input = testSignal(rate)
      const streamed = encodeBlocks(encoder, rate, undefined, irregularBlocks(input, 7, 3000))
      const oneShot = encodeBlocks(encoder, rate, undefined, [input])
      const [a, b] = await Promise.all([ffmpegDecode(streamed, raw(rate)), ffmpegDecode(oneShot, raw(rate))])
      expect(a.length).toBe(b.length)
      let maxDiff = 0
      for (let i = 0; i < a.length; i++) maxDiff = Math.max(maxDiff, Math.abs(a[i]! - b[i]!))
      expect(maxDiff).toBeLessThan(1e-6)
      if (o.byteIdentical) expect(Buffer.compare(streamed, oneShot)).toBe(0)
    })

    if (o.skip?.empty) it(`ends a stream with no audio as a valid, empty one — not applicable: ${o.skip.empty}`, () => {})
    else it('ends a stream with no audio as a valid, empty one', async () => {
      const rate = o.cases[0]!.rate
      const bytes = encoder.create({ sampleRate: rate }).end()
      if (o.rawInput) return expect(bytes.length).toBe(0)
      expect((await ffprobe(bytes)).streams[0]!.codec_name).toBe(o.codec)
      expect((await ffmpegDecode(bytes)).length).toBe(0)
    })

    it('keeps interleaved sessions independent', async () => {
      const rate = o.cases[0]!.rate
      const a = speechLike(1, rate, 1)
      const b = sweep(100, 5000, 1, rate)
      const solo = await ffmpegDecode(encodeBlocks(encoder, rate, undefined, [a]), raw(rate))
      const s1 = encoder.create({ sampleRate: rate })
      const s2 = encoder.create({ sampleRate: rate })
      const parts: Uint8Array[] = []
      const step = Math.round(rate / 10)
      for (let i = 0; i < a.length; i += step) {
        parts.push(s1.push(a.subarray(i, i + step)))
        s2.push(b.subarray(i, i + step))
      }
      parts.push(s1.end())
      s2.end()
      const mixed = await ffmpegDecode(concatBytes(parts), raw(rate))
      expect(mixed.length).toBe(solo.length)
      let maxDiff = 0
      for (let i = 0; i < solo.length; i++) maxDiff = Math.max(maxDiff, Math.abs(mixed[i]! - solo[i]!))
      expect(maxDiff).toBeLessThan(1e-6)
    })
  })
}
