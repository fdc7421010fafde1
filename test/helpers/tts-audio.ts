/**
 * Independent checks of TTS output: decoding and probing with ffmpeg/ffprobe (not Parla's own decoders),
 * transcription with the pocketsphinx CLI, and a few plain measurements on the decoded samples.
 */
import { execFile, spawn } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { medianF0, trackPitch } from '../../src/audio/dsp/pitch.js'

const run = promisify(execFile)

export type Format = 'wav' | 'pcm' | 'mp3' | 'opus'
/** Formats of the OpenAI surface too. */
export type AnyFormat = Format | 'aac' | 'flac'

/** ffmpeg input options for raw pcm (headerless s16le mono at `rate`); none for self-describing files. */
const inputArgs = (format: AnyFormat, rate: number) => (format === 'pcm' ? ['-f', 's16le', '-ar', String(rate), '-ac', '1'] : [])

function ffmpeg(args: readonly string[], input: Uint8Array): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn('ffmpeg', ['-hide_banner', '-loglevel', 'error', ...args], { stdio: ['pipe', 'pipe', 'pipe'] })
    const out: Buffer[] = []
    let err = ''
    child.stdout.on('data', (d: Buffer) => out.push(d))
    child.stderr.on('data', (d: Buffer) => (err += d.toString()))
    child.on('error', reject)
    child.on('close', (code) => (code === 0 ? resolve(Buffer.concat(out)) : reject(new Error(`ffmpeg exited ${code}: ${err}`))))
    child.stdin.on('error', () => {})
    child.stdin.end(input)
  })
}

export interface Decoded {
  readonly samples: Float32Array
  readonly sampleRate: number
  readonly seconds: number
}

/** Decodes with ffmpeg to mono float samples at the file's own rate (`pcmRate` for raw pcm). */
export async function decode(bytes: Uint8Array, format: AnyFormat, pcmRate = 44100): Promise<Decoded> {
  const rate = format === 'pcm' ? pcmRate : (await probe(bytes, format)).sampleRate
  const raw = await ffmpeg([...inputArgs(format, pcmRate), '-i', 'pipe:0', '-ac', '1', '-f', 'f32le', 'pipe:1'], bytes)
  const samples = new Float32Array(raw.buffer, raw.byteOffset, raw.length / 4).slice()
  return { samples, sampleRate: rate, seconds: samples.length / rate }
}

export interface Probe {
  readonly codec: string
  readonly sampleRate: number
  readonly channels: number
  readonly seconds: number
  /** Stream bit rate when the container states it (mp3), else the file's average (size / duration). */
  readonly bitRate: number
}

/** What ffprobe says about an encoded file. */
export async function probe(bytes: Uint8Array, format: AnyFormat): Promise<Probe> {
  const dir = await mkdtemp(join(tmpdir(), 'parla-probe-'))
  try {
    const file = join(dir, `audio.${format === 'opus' ? 'ogg' : format}`)
    await writeFile(file, bytes)
    const { stdout } = await run('ffprobe', ['-v', 'error', '-show_streams', '-show_format', '-of', 'json', file])
    const info = JSON.parse(stdout) as {
      streams: { codec_name: string; sample_rate: string; channels: number; duration?: string; bit_rate?: string }[]
      format: { duration?: string; bit_rate?: string }
    }
    const s = info.streams[0]!
    const seconds = Number(s.duration ?? info.format.duration)
    return {
      codec: s.codec_name,
      sampleRate: Number(s.sample_rate),
      channels: s.channels,
      seconds,
      bitRate: Number(s.bit_rate ?? info.format.bit_rate ?? (bytes.length * 8) / seconds),
    }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/** Lower-case words pocketsphinx hears in the audio (16 kHz mono WAV made by ffmpeg). */
export async function transcribe(bytes: Uint8Array, format: Format, pcmRate = 44100): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'parla-asr-'))
  try {
    const wav = join(dir, 'speech.wav')
    await writeFile(wav, await ffmpeg([...inputArgs(format, pcmRate), '-i', 'pipe:0', '-ar', '16000', '-ac', '1', '-f', 'wav', 'pipe:1'], bytes))
    const { stdout } = await run('pocketsphinx_continuous', ['-infile', wav, '-logfn', '/dev/null'], { maxBuffer: 1 << 20 })
    return stdout.replace(/\s+/g, ' ').trim().toLowerCase()
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/** Raw s16le bytes to float samples. */
export function pcm16(bytes: Uint8Array): Float32Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const out = new Float32Array(Math.floor(bytes.length / 2))
  for (let i = 0; i < out.length; i++) out[i] = view.getInt16(i * 2, true) / 32768
  return out
}

export const rmsDb = (x: Float32Array): number => {
  let sum = 0
  for (const v of x) sum += v * v
  return 10 * Math.log10(sum / Math.max(1, x.length) + 1e-20)
}

/** RMS over the 20 ms frames louder than -50 dBFS (speech only, pauses excluded), dBFS. */
export function speechRmsDb(x: Float32Array, rate: number): number {
  const frame = Math.round(rate * 0.02)
  let sum = 0
  let n = 0
  for (let at = 0; at + frame <= x.length; at += frame) {
    const f = x.subarray(at, at + frame)
    if (rmsDb(f) > -50) {
      for (const v of f) sum += v * v
      n += frame
    }
  }
  return 10 * Math.log10(sum / Math.max(1, n) + 1e-20)
}

/** Seconds of 20 ms frames louder than -40 dBFS. */
export function voicedSeconds(x: Float32Array, rate: number): number {
  const frame = Math.round(rate * 0.02)
  let n = 0
  for (let at = 0; at + frame <= x.length; at += frame) if (rmsDb(x.subarray(at, at + frame)) > -40) n++
  return n * 0.02
}

export const medianPitch = (x: Float32Array, rate: number): number => medianF0(trackPitch(x, rate))

/** Largest sample-to-sample step in `x[from, to)`. */
export function maxStep(x: Float32Array, from: number, to: number): number {
  let max = 0
  for (let i = Math.max(1, from); i < Math.min(x.length, to); i++) max = Math.max(max, Math.abs(x[i]! - x[i - 1]!))
  return max
}

/** Reads a web or Node stream of bytes to the end. */
export async function readAll(stream: AsyncIterable<Uint8Array> | ReadableStream<Uint8Array>): Promise<Buffer> {
  const parts: Buffer[] = []
  for await (const part of stream as AsyncIterable<Uint8Array>) parts.push(Buffer.from(part))
  return Buffer.concat(parts)
}
