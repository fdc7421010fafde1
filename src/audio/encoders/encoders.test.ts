import { describe, expect, it } from 'vitest'
import { SpeechError } from '../../errors.js'
import { rms } from '../signal.js'
import {
  bestCorrelation,
  concatBytes,
  cpuMs,
  ffmpegDecode,
  ffprobe,
  irregularBlocks,
  speechLike,
  sweep,
} from '../../../test/support/audio.js'
import type { AudioFormat } from '../types.js'
import { getEncoder, outputSampleRate } from './registry.js'

/** 1 s of speech-like bursts, then a 1 s sweep 80 Hz -> 8 kHz (capped below Nyquist). */
function testSignal(rate: number): Float32Array {
  const speech = speechLike(1, rate, rate)
  const tone = sweep(80, Math.min(8000, rate * 0.4), 1, rate, 0.4)
  const out = new Float32Array(speech.length + tone.length)
  out.set(speech)
  out.set(tone, speech.length)
  return out
}

function encode(format: AudioFormat, sampleRate: number, bitrate: number | undefined, blocks: readonly Float32Array[]) {
  const session = getEncoder(format).create({ sampleRate, bitrate })
  const parts = blocks.map((b) => session.push(b))
  parts.push(session.end())
  return { bytes: concatBytes(parts), parts }
}

const rawInput = (rate: number) => ['-f', 's16le', '-ar', String(rate), '-ac', '1']

interface Case {
  readonly format: AudioFormat
  readonly rate: number
  readonly bitrate?: number
  /** Expected bitrate in bits per second, checked within ±20 %. */
  readonly expectBps?: number
}

const CASES: readonly Case[] = [
  { format: 'wav', rate: 8000 },
  { format: 'wav', rate: 22050 },
  { format: 'wav', rate: 44100 },
  { format: 'wav', rate: 48000 },
  { format: 'pcm', rate: 16000 },
  { format: 'pcm', rate: 44100 },
  { format: 'mp3', rate: 44100, bitrate: 64_000, expectBps: 64_000 },
  { format: 'mp3', rate: 44100, expectBps: 128_000 },
  { format: 'mp3', rate: 48000, bitrate: 192_000, expectBps: 192_000 },
  { format: 'mp3', rate: 32000, bitrate: 128, expectBps: 128_000 },
  { format: 'mp3', rate: 24000, bitrate: 64_000, expectBps: 64_000 },
  { format: 'mp3', rate: 22050, bitrate: 192_000, expectBps: 160_000 },
  { format: 'mp3', rate: 16000, bitrate: 128_000, expectBps: 128_000 },
  { format: 'opus', rate: 48000, bitrate: -1000 },
  { format: 'opus', rate: 48000, bitrate: 24_000, expectBps: 24_000 },
  { format: 'opus', rate: 48000, bitrate: 32_000, expectBps: 32_000 },
  { format: 'opus', rate: 48000, bitrate: 48_000, expectBps: 48_000 },
  { format: 'opus', rate: 48000, bitrate: 64_000, expectBps: 64_000 },
]

const CODEC = { wav: 'pcm_s16le', pcm: 'pcm_s16le', mp3: 'mp3', opus: 'opus' } as const

describe.concurrent('encoders, checked by ffprobe/ffmpeg', () => {
  for (const c of CASES) {
    it(`${c.format} ${c.rate} Hz ${c.bitrate ?? 'default'}: valid stream, duration, level, bitrate`, async () => {
      const input = testSignal(c.rate)
      const { bytes } = encode(c.format, c.rate, c.bitrate, irregularBlocks(input, c.rate))
      const inputArgs = c.format === 'pcm' ? rawInput(c.rate) : []
      const probe = await ffprobe(bytes, inputArgs)
      const stream = probe.streams[0]!
      expect(stream.codec_name).toBe(CODEC[c.format])
      expect(Number(stream.sample_rate)).toBe(c.rate)
      expect(stream.channels).toBe(1)

      const decoded = await ffmpegDecode(bytes, inputArgs)
      if (c.format === 'mp3') {
        // No LAME/Xing tag in a stream, so decoders keep the encoder delay and the last frame's padding.
        const frame = c.rate >= 32000 ? 1152 : 576
        expect(decoded.length - input.length).toBeGreaterThanOrEqual(0)
        expect(decoded.length - input.length).toBeLessThanOrEqual(frame + 1105)
      } else {
        // wav/pcm are exact; Ogg Opus is exact through pre-skip and the final granule.
        expect(decoded.length).toBe(input.length)
      }
      const level = rms(decoded) / rms(input)
      expect(level).toBeGreaterThan(0.7)
      expect(level).toBeLessThan(1.3)
      // The waveform survives: a speech-like stretch correlates with the input (mp3 after its delay).
      const maxLag = c.format === 'mp3' ? 2400 : 0
      const window = bestCorrelation(input, decoded, Math.round(c.rate * 0.3), Math.round(c.rate * 0.2), maxLag)
      expect(window.r).toBeGreaterThan(c.format === 'wav' || c.format === 'pcm' ? 0.9999 : 0.9)

      if (c.expectBps) {
        const seconds = input.length / c.rate
        const bps = (bytes.length * 8) / seconds
        expect(bps / c.expectBps).toBeGreaterThan(0.8)
        expect(bps / c.expectBps).toBeLessThan(1.2)
        if (c.format === 'mp3') expect(Number(stream.bit_rate)).toBe(c.expectBps)
      }
    })
  }

  for (const format of ['wav', 'pcm', 'mp3', 'opus'] as const) {
    it(`${format}: chunk-by-chunk encoding decodes to the same audio as one-shot`, async () => {
      const rate = outputSampleRate(getEncoder(format), 24000)
      const input = testSignal(rate)
      const streamed = encode(format, rate, undefined, irregularBlocks(input, 7, 3000))
      const oneShot = encode(format, rate, undefined, [input])
      const inputArgs = format === 'pcm' ? rawInput(rate) : []
      const [a, b] = await Promise.all([ffmpegDecode(streamed.bytes, inputArgs), ffmpegDecode(oneShot.bytes, inputArgs)])
      expect(a.length).toBe(b.length)
      let maxDiff = 0
      for (let i = 0; i < a.length; i++) maxDiff = Math.max(maxDiff, Math.abs(a[i]! - b[i]!))
      expect(maxDiff).toBeLessThan(1e-6)
      // Only Ogg page layout (and its random serial) may differ; the other formats are byte-identical.
      if (format !== 'opus') expect(Buffer.compare(streamed.bytes, oneShot.bytes)).toBe(0)
    })
  }
})

describe('streaming behaviour', () => {
  it('wav: the first push carries a streaming header (unknown sizes) and the data', () => {
    const session = getEncoder('wav').create({ sampleRate: 24000 })
    const first = session.push(new Float32Array(100).fill(0.5))
    expect(first.length).toBe(44 + 200)
    const view = new DataView(first.buffer, first.byteOffset)
    expect(view.getUint32(4, true)).toBe(0xffffffff)
    expect(view.getUint32(40, true)).toBe(0xffffffff)
    expect(view.getUint32(24, true)).toBe(24000)
    expect(session.push(new Float32Array(10)).length).toBe(20)
    expect(session.end().length).toBe(0)
  })

  it('wav: a stream with no audio is still a valid (empty) file', async () => {
    const bytes = getEncoder('wav').create({ sampleRate: 16000 }).end()
    expect(bytes.length).toBe(44)
    expect((await ffprobe(bytes)).streams[0]!.codec_name).toBe('pcm_s16le')
  })

  it('opus: the first 20 ms push already yields header pages and an audio page', () => {
    const session = getEncoder('opus').create({ sampleRate: 48000 })
    const first = session.push(speechLike(0.02, 48000))
    const pages = new TextDecoder('latin1').decode(first).split('OggS').length - 1
    expect(pages).toBe(3)
    session.end()
  })

  it('mp3: bytes start flowing within the first half second', () => {
    const session = getEncoder('mp3').create({ sampleRate: 44100 })
    let sent = 0
    for (const block of irregularBlocks(speechLike(0.5, 44100), 3, 2205)) sent += session.push(block).length
    expect(sent).toBeGreaterThan(0)
    session.end()
  })

  it('mp3: interleaved sessions sharing the LAME instance stay independent', () => {
    const a = speechLike(1, 44100, 1)
    const b = sweep(100, 5000, 1, 44100)
    const solo = encode('mp3', 44100, undefined, [a]).bytes
    const s1 = getEncoder('mp3').create({ sampleRate: 44100 })
    const s2 = getEncoder('mp3').create({ sampleRate: 44100, bitrate: 64_000 })
    const parts: Uint8Array[] = []
    for (let i = 0; i < a.length; i += 4410) {
      parts.push(s1.push(a.subarray(i, i + 4410)))
      s2.push(b.subarray(i, i + 4410))
    }
    parts.push(s1.end())
    s2.end()
    expect(Buffer.compare(concatBytes(parts), solo)).toBe(0)
  })

  it('encodes far faster than real time (RTF < 0.05) for mp3 and opus', () => {
    for (const [format, rate] of [['mp3', 44100], ['opus', 48000]] as const) {
      const input = speechLike(10, rate)
      const blocks = irregularBlocks(input, 5, 4800)
      const rtf = cpuMs(() => encode(format, rate, undefined, blocks), 1) / 1000 / 10
      expect(rtf, format).toBeLessThan(0.05)
    }
  })

  it('rejects rates and bitrates the format cannot carry with a 422', () => {
    const bad = [
      () => getEncoder('opus').create({ sampleRate: 44100 }),
      () => getEncoder('opus').create({ sampleRate: 48000, bitrate: 12 }),
      () => getEncoder('mp3').create({ sampleRate: 44100, bitrate: 100_000 }),
      () => getEncoder('mp3').create({ sampleRate: 44000 }),
      () => getEncoder('wav').create({ sampleRate: 0 }),
    ]
    for (const make of bad) {
      expect(make).toThrow(SpeechError)
      try {
        make()
      } catch (err) {
        expect((err as SpeechError).status).toBe(422)
      }
    }
  })

  it('outputSampleRate keeps rates a format carries and falls back to its default otherwise', () => {
    expect(outputSampleRate(getEncoder('mp3'), 24000)).toBe(24000)
    expect(outputSampleRate(getEncoder('mp3'), 44000)).toBe(44100)
    expect(outputSampleRate(getEncoder('opus'), 24000)).toBe(48000)
    expect(outputSampleRate(getEncoder('wav'), 11000)).toBe(11000)
    expect(outputSampleRate(getEncoder('pcm'), null)).toBe(44100)
  })
})
