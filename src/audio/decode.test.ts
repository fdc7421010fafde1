import { beforeAll, describe, expect, it } from 'vitest'
import { SpeechError } from '../errors.js'
import { decodeAudio } from './decode.js'
import { getEncoder } from './encoders/registry.js'
import { float32ToInt16, rms } from './signal.js'
import { ffmpegEncode, prng, sine, zeroCrossingFrequency } from '../../test/support/audio.js'

const RATE = 44100
const SECONDS = 1.5

/** `seconds` of silence as unsigned 8-bit WAV at 1 kHz: a long input for ffmpeg at 1 byte per sample. */
function silentWav8(seconds: number): Uint8Array {
  const n = seconds * 1000
  const wav = Buffer.alloc(44 + n, 128)
  const fields: [string | number, number, 'text' | 16 | 32][] = [
    ['RIFF', 0, 'text'], [36 + n, 4, 32], ['WAVE', 8, 'text'], ['fmt ', 12, 'text'], [16, 16, 32], [1, 20, 16],
    [1, 22, 16], [1000, 24, 32], [1000, 28, 32], [1, 32, 16], [8, 34, 16], ['data', 36, 'text'], [n, 40, 32],
  ]
  for (const [value, at, kind] of fields) {
    if (kind === 'text') wav.write(value as string, at, 'ascii')
    else if (kind === 16) wav.writeUInt16LE(value as number, at)
    else wav.writeUInt32LE(value as number, at)
  }
  return wav
}

function wavOf(samples: Float32Array, rate: number): Uint8Array {
  const session = getEncoder('wav').create({ sampleRate: rate })
  return Buffer.concat([session.push(samples), session.end()])
}

interface Fixture {
  readonly name: string
  readonly ext: string
  readonly args: readonly string[]
  readonly format: string
  readonly rate?: number
  readonly stereo?: boolean
  /** Allowed duration error in seconds (codec priming, padding to a whole block or frame). */
  readonly slack?: number
}

const FIXTURES: readonly Fixture[] = [
  { name: 'wav s16', ext: 'wav', args: ['-c:a', 'pcm_s16le'], format: 'wav' },
  { name: 'wav u8', ext: 'wav', args: ['-c:a', 'pcm_u8'], format: 'wav' },
  { name: 'wav s24', ext: 'wav', args: ['-c:a', 'pcm_s24le'], format: 'wav' },
  { name: 'wav s32', ext: 'wav', args: ['-c:a', 'pcm_s32le'], format: 'wav' },
  { name: 'wav float', ext: 'wav', args: ['-c:a', 'pcm_f32le'], format: 'wav' },
  { name: 'wav mu-law', ext: 'wav', args: ['-c:a', 'pcm_mulaw', '-ar', '8000'], format: 'wav', rate: 8000 },
  { name: 'wav a-law', ext: 'wav', args: ['-c:a', 'pcm_alaw', '-ar', '8000'], format: 'wav', rate: 8000 },
  { name: 'wav IMA ADPCM', ext: 'wav', args: ['-c:a', 'adpcm_ima_wav'], format: 'wav', slack: 0.05 },
  { name: 'wav MS ADPCM', ext: 'wav', args: ['-c:a', 'adpcm_ms'], format: 'wav', slack: 0.05 },
  { name: 'wav stereo', ext: 'wav', args: ['-c:a', 'pcm_s16le'], format: 'wav', stereo: true },
  { name: 'mp3 with ID3 and Xing', ext: 'mp3', args: ['-c:a', 'libmp3lame', '-b:a', '128k'], format: 'mp3', slack: 0.03 },
  {
    name: 'mp3 bare',
    ext: 'mp3',
    args: ['-c:a', 'libmp3lame', '-b:a', '64k', '-id3v2_version', '0', '-write_xing', '0'],
    format: 'mp3',
    slack: 0.08,
  },
  { name: 'mp3 stereo', ext: 'mp3', args: ['-c:a', 'libmp3lame', '-b:a', '128k'], format: 'mp3', stereo: true, slack: 0.03 },
  { name: 'ogg opus', ext: 'opus', args: ['-c:a', 'libopus', '-b:a', '32k'], format: 'ogg-opus', rate: 48000, slack: 0.01 },
  { name: 'ogg vorbis', ext: 'ogg', args: ['-c:a', 'libvorbis'], format: 'ogg-vorbis', slack: 0.01 },
  { name: 'flac', ext: 'flac', args: ['-c:a', 'flac'], format: 'flac' },
  { name: 'ogg flac', ext: 'oga', args: ['-c:a', 'flac'], format: 'ogg-flac' },
  { name: 'm4a aac', ext: 'm4a', args: ['-c:a', 'aac', '-b:a', '96k'], format: 'm4a', slack: 0.06 },
  { name: 'mp4 aac', ext: 'mp4', args: ['-c:a', 'aac', '-b:a', '96k'], format: 'mp4', slack: 0.06 },
  { name: 'adts aac', ext: 'aac', args: ['-c:a', 'aac', '-b:a', '96k'], format: 'aac', slack: 0.06 },
  { name: 'webm opus', ext: 'webm', args: ['-c:a', 'libopus', '-b:a', '32k'], format: 'webm', rate: 48000, slack: 0.03 },
  { name: 'm4a alac', ext: 'm4a', args: ['-c:a', 'alac'], format: 'm4a' },
  { name: 'mkv vorbis', ext: 'mkv', args: ['-c:a', 'libvorbis'], format: 'mkv', slack: 0.03 },
  { name: 'caf', ext: 'caf', args: ['-c:a', 'pcm_s16le'], format: 'caf' },
  { name: 'aiff', ext: 'aiff', args: ['-c:a', 'pcm_s16be'], format: 'aiff' },
]

const files = new Map<string, Uint8Array>()
const tone = sine(440, SECONDS, RATE, 0.5)
let stereoWav: Uint8Array

beforeAll(async () => {
  const monoWav = wavOf(tone, RATE)
  // Left: the tone; right: silence. The mono downmix is the tone at half amplitude.
  const interleaved = new Int16Array(tone.length * 2)
  for (let i = 0; i < tone.length; i++) interleaved[i * 2] = Math.round(tone[i]! * 32767)
  stereoWav = Buffer.concat([stereoHeader(interleaved.byteLength), new Uint8Array(interleaved.buffer)])
  await Promise.all(
    FIXTURES.map(async (f) => files.set(f.name, await ffmpegEncode(f.stereo ? stereoWav : monoWav, f.ext, [...f.args]))),
  )
})

function stereoHeader(dataBytes: number): Uint8Array {
  const h = new DataView(new ArrayBuffer(44))
  const text = (o: number, s: string) => [...s].forEach((c, i) => h.setUint8(o + i, c.charCodeAt(0)))
  text(0, 'RIFF')
  h.setUint32(4, 36 + dataBytes, true)
  text(8, 'WAVE')
  text(12, 'fmt ')
  h.setUint32(16, 16, true)
  h.setUint16(20, 1, true)
  h.setUint16(22, 2, true)
  h.setUint32(24, RATE, true)
  h.setUint32(28, RATE * 4, true)
  h.setUint16(32, 4, true)
  h.setUint16(34, 16, true)
  text(36, 'data')
  h.setUint32(40, dataBytes, true)
  return new Uint8Array(h.buffer)
}

describe('decodeAudio: formats made by ffmpeg', () => {
  for (const f of FIXTURES) {
    it(`${f.name}`, async () => {
      const decoded = await decodeAudio(files.get(f.name)!, { name: `x.${f.ext}` })
      expect(decoded.format).toBe(f.format)
      expect(decoded.sampleRate).toBe(f.rate ?? RATE)
      expect(decoded.channels).toBe(f.stereo ? 2 : 1)
      expect(decoded.samples.length).toBe(Math.round(decoded.durationSec * decoded.sampleRate))
      expect(Math.abs(decoded.durationSec - SECONDS)).toBeLessThanOrEqual(f.slack ?? 0.0001)
      const middle = decoded.samples.subarray(decoded.sampleRate * 0.3, decoded.sampleRate * 1.2)
      expect(Math.abs(zeroCrossingFrequency(middle, decoded.sampleRate) - 440)).toBeLessThan(1)
      const expectedRms = (f.stereo ? 0.25 : 0.5) / Math.SQRT2
      expect(Math.abs(20 * Math.log10(rms(middle) / expectedRms))).toBeLessThan(1)
    })
  }

  it('decodes what Parla itself encodes (wav stream header, mp3, Ogg Opus)', async () => {
    const cases = [['wav', 24000, 'wav'], ['mp3', 24000, 'mp3'], ['opus', 48000, 'ogg-opus']] as const
    for (const [format, rate, label] of cases) {
      const session = getEncoder(format).create({ sampleRate: rate })
      const bytes = Buffer.concat([session.push(sine(440, 1, rate)), session.end()])
      const decoded = await decodeAudio(bytes)
      expect(decoded.format).toBe(label)
      expect(decoded.durationSec).toBeGreaterThanOrEqual(0.999)
      expect(decoded.durationSec).toBeLessThan(1.1)
    }
  })

  it('int16 output holds the float output rounded to 16 bits, at half the size', async () => {
    for (const name of ['ogg opus', 'mp3 stereo', 'wav s24']) {
      const floats = await decodeAudio(files.get(name)!, { targetRate: 16000 })
      const ints = await decodeAudio(files.get(name)!, { targetRate: 16000, sampleType: 'int16' })
      expect(ints.samples, name).toBeInstanceOf(Int16Array)
      expect(ints.samples, name).toEqual(float32ToInt16(floats.samples))
      expect(ints.samples.buffer.byteLength, name).toBeLessThanOrEqual(floats.samples.length * 2 * 1.03)
      expect({ ...ints, samples: null }, name).toEqual({ ...floats, samples: null })
    }
  })

  it('int16 output of a 16-bit mono WAV at the wanted rate is the file\'s own samples, not a copy', async () => {
    const samples = sine(440, 1.5, 16000)
    samples[100] = 1
    samples[101] = -1
    const wav = wavOf(samples, 16000)
    const data = new Int16Array(Uint8Array.prototype.slice.call(wav, 44).buffer)
    const direct = await decodeAudio(wav, { targetRate: 16000, sampleType: 'int16' })
    expect(direct).toMatchObject({ sampleRate: 16000, channels: 1, format: 'wav', durationSec: 1.5 })
    expect(direct.samples).toEqual(data)
    expect(direct.samples.buffer).toBe(wav.buffer)
    // At an odd offset (a view into a larger body) it is copied, still exact.
    const body = new Uint8Array(wav.length + 1)
    body.set(wav, 1)
    expect((await decodeAudio(body.subarray(1), { sampleType: 'int16' })).samples).toEqual(data)
    expect((await decodeAudio(Buffer.from(body.buffer).subarray(1), { sampleType: 'int16' })).samples).toEqual(data)
    // Another rate, or floats, still go through the decoder.
    const resampled = await decodeAudio(wav, { targetRate: 8000, sampleType: 'int16' })
    expect(resampled.samples.buffer).not.toBe(wav.buffer)
    expect(resampled.durationSec).toBeCloseTo(1.5, 2)
  })
})

describe('decodeAudio: straight to a target rate, within a time limit', () => {
  it('decodes every format to 16 kHz mono in the worker, with the right length, pitch and level', async () => {
    for (const f of FIXTURES) {
      const decoded = await decodeAudio(files.get(f.name)!, { name: `x.${f.ext}`, targetRate: 16_000 })
      expect(decoded.sampleRate, f.name).toBe(16_000)
      expect(decoded.channels, f.name).toBe(f.stereo ? 2 : 1)
      expect(Math.abs(decoded.durationSec - SECONDS), f.name).toBeLessThanOrEqual((f.slack ?? 0) + 0.001)
      const middle = decoded.samples.subarray(16_000 * 0.3, 16_000 * 1.2)
      expect(Math.abs(zeroCrossingFrequency(middle, 16_000) - 440), f.name).toBeLessThan(1)
      const expectedRms = (f.stereo ? 0.25 : 0.5) / Math.SQRT2
      expect(Math.abs(20 * Math.log10(rms(middle) / expectedRms)), f.name).toBeLessThan(1)
    }
  })

  it('stops decoding a compressed file once it passes maxSeconds: 3 hours of MP3 in 11 MB', async () => {
    // 8 kbit/s: decoded in full this file would be 10,800 s of audio.
    const mp3 = await ffmpegEncode(silentWav8(3 * 3600), 'mp3', ['-ar', '8000', '-c:a', 'libmp3lame', '-b:a', '8k'])
    const err = await decodeAudio(mp3, { name: 'long.mp3', maxSeconds: 3600, targetRate: 16_000, timeoutMs: 60_000 })
      .catch((e: unknown) => e)
    expect(err).toBeInstanceOf(SpeechError)
    const msg = (err as SpeechError).issues[0]!.msg
    expect(msg).toMatch(/^file 'long\.mp3' is longer than the limit of 3600 s \(decoding stopped at \d+\.\d s\)/)
    const stoppedAt = Number(/stopped at (\d+\.\d) s/.exec(msg)![1])
    expect(stoppedAt).toBeGreaterThan(3600)
    expect(stoppedAt).toBeLessThan(3660)
  }, 60_000)

  it('refuses a FLAC file longer than maxSeconds from its header (FLAC is decoded in one piece)', async () => {
    const flac = await ffmpegEncode(silentWav8(2 * 3600), 'flac', ['-ar', '8000', '-c:a', 'flac'])
    const err = await decodeAudio(flac, { name: 'long.flac', maxSeconds: 3600 }).catch((e: unknown) => e)
    // The header's length, not "decoding stopped at": nothing was decoded.
    expect((err as SpeechError).issues[0]!.msg).toBe("file 'long.flac' is 7200.0 s long; the limit is 3600 s")
  }, 60_000)
})

async function expect422(bytes: Uint8Array, pattern: RegExp, name = 'upload.bin'): Promise<void> {
  const loc = ['body', 'references', '0', 'audio']
  const err = await decodeAudio(bytes, { name, loc }).then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(err).toBeInstanceOf(SpeechError)
  const e = err as SpeechError
  expect(e.code).toBe('validation_failed')
  expect(e.status).toBe(422)
  expect(e.issues[0]!.loc).toEqual(loc)
  expect(e.issues[0]!.msg).toMatch(pattern)
  expect(e.issues[0]!.msg).toContain(`'${name}'`)
}

describe('decodeAudio: hostile and wrong input is a 422', () => {
  it('empty', () => expect422(new Uint8Array(0), /is empty/))
  const text = (s: string) => new TextEncoder().encode(s)
  it('plain text', () =>
    expect422(text('Hello, this is my voice sample.\n'), /not audio: it looks like plain text; send WAV/, 'x.txt'))
  it('JSON', () => expect422(text('{"audio": "..."}'), /looks like JSON/))
  it('base64 of a WAV', () =>
    expect422(text(Buffer.from(wavOf(tone.subarray(0, 500), RATE)).toString('base64')), /base64/))
  it('PNG header', () =>
    expect422(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]), /PNG image/))
  it('random bytes', () => {
    const random = prng(42)
    const bytes = Uint8Array.from({ length: 4096 }, () => Math.floor(random() * 256) | 0x80)
    return expect422(bytes, /not in a recognised audio format/)
  })
  it('truncated mp3', () => expect422(files.get('mp3 bare')!.subarray(0, 100), /MP3 but holds no decodable audio/))
  it('truncated m4a (moov atom cut off)', () => {
    const m4a = files.get('m4a aac')!
    return expect422(m4a.subarray(0, m4a.length >> 1), /M4A but could not be decoded/)
  })
  it('Ogg with an unsupported codec', () => {
    const ogg = Buffer.from(files.get('ogg opus')!)
    ogg.write('Speex   ', 28, 'latin1')
    return expect422(ogg, /Ogg Speex, which is not supported/)
  })

  const wavWith = (edit: (view: DataView) => void, length = 2000): Uint8Array => {
    const bytes = new Uint8Array(wavOf(tone.subarray(0, 1000), RATE)).slice(0, length)
    edit(new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength))
    return bytes
  }
  it('WAV claiming 0 channels', () => expect422(wavWith((v) => v.setUint16(22, 0, true)), /claims 0 channels/))
  it('WAV claiming 65535 channels', () => expect422(wavWith((v) => v.setUint16(22, 65535, true)), /claims 65535 channels/))
  it('WAV claiming a 0 Hz rate', () => expect422(wavWith((v) => v.setUint32(24, 0, true)), /sample rate of 0 Hz/))
  it('WAV with a fmt chunk of absurd size', () =>
    expect422(wavWith((v) => v.setUint32(16, 0x7ffffff0, true)), /no data chunk|truncated/))
  it('WAV with MP3 inside', () =>
    expect422(wavWith((v) => v.setUint16(20, 0x55, true)), /MPEG Layer 3 data, which is not supported/))
  it('WAV header only', () => expect422(wavWith(() => {}, 44), /holds no audio samples/))
  it('WAV longer than allowed', async () => {
    const err = await decodeAudio(files.get('wav s16')!, { maxSeconds: 1 }).catch((e: unknown) => e)
    expect((err as SpeechError).issues[0]!.msg).toMatch(/is 1\.5 s long; the limit is 1 s/)
  })

  it('MP4 whose sample table claims billions of entries (once crashed the process)', () => {
    const m4a = Buffer.from(files.get('m4a aac')!)
    const stsz = m4a.indexOf('stsz')
    expect(stsz).toBeGreaterThan(0)
    m4a.writeUInt32BE(0, stsz + 8) // variable sample sizes...
    m4a.writeUInt32BE(0x7fffffff, stsz + 12) // ...and 2^31 of them
    return expect422(m4a, /stsz table claims 2147483647 samples/, 'voice.m4a')
  })

  it('a decoder past its deadline is killed, and the next decode works', async () => {
    // A minute of Vorbis takes the decoder ~100 ms or more, far past 10 ms even when this thread is slow to
    // notice the deadline (a 1.5 s file once finished first on a busy machine).
    const minute = await ffmpegEncode(wavOf(sine(440, 60, 16000), 16000), 'ogg', ['-c:a', 'libvorbis'])
    const err = await decodeAudio(minute, { timeoutMs: 10 }).catch((e: unknown) => e)
    expect((err as SpeechError).status).toBe(422)
    expect((err as SpeechError).message).toMatch(/did not finish within 10 ms/)
    expect((await decodeAudio(files.get('ogg vorbis')!)).format).toBe('ogg-vorbis')
  })

  it('stops on abort with the abort error, not a 422', async () => {
    const controller = new AbortController()
    const pending = decodeAudio(files.get('ogg vorbis')!, { signal: controller.signal })
    controller.abort()
    const err = await pending.catch((e: unknown) => e)
    expect(err).not.toBeInstanceOf(SpeechError)
    expect((err as Error).name).toBe('AbortError')
  })

  it('damaged files never escape as anything but a 422 (mutation fuzz)', async () => {
    const random = prng(7)
    const names = ['wav s16', 'mp3 with ID3 and Xing', 'ogg opus', 'ogg vorbis', 'flac', 'm4a aac', 'webm opus', 'adts aac']
    for (const name of names) {
      const original = files.get(name)!
      for (let round = 0; round < 12; round++) {
        const bytes = original.slice(0, round % 3 === 0 ? Math.floor(random() * original.length) : original.length)
        const flips = 1 + Math.floor(random() * 30)
        for (let i = 0; i < flips && bytes.length > 0; i++) {
          bytes[Math.floor(random() * bytes.length)] = Math.floor(random() * 256)
        }
        try {
          const decoded = await decodeAudio(bytes)
          expect(decoded.samples.length).toBeGreaterThan(0)
          expect(decoded.samples.every((v) => Number.isFinite(v) && Math.abs(v) <= 1)).toBe(true)
        } catch (err) {
          expect(err, `${name} round ${round}`).toBeInstanceOf(SpeechError)
          expect((err as SpeechError).status).toBe(422)
        }
      }
    }
  })
})
