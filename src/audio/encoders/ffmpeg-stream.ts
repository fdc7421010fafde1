import { spawn } from 'node:child_process'
import { SpeechError } from '../../errors.js'
import type { AudioEncoder, AudioFormat, EncoderOptions, EncoderSession } from '../types.js'
import { assertSampleRate, toS16le } from './s16le.js'

/**
 * Encoders that run Debian's ffmpeg as a child process, for codecs with no well-kept in-process encoder on
 * npm (AAC; FLAC has only an unmaintained emscripten build). 16-bit PCM goes in on stdin as it is
 * produced, and `-flush_packets 1` makes ffmpeg write each encoded packet at once, so bytes stream out
 * as they are made. One process per response; it ends when the input ends or the consumer stops reading.
 */
interface FfmpegCodec {
  readonly format: AudioFormat
  readonly contentType: string
  readonly sampleRates?: readonly number[]
  /** Codec and muxer arguments after the input. */
  readonly args: (options: EncoderOptions) => string[]
  readonly delaySamples?: number
}

/** The rates the AAC encoder has sampling-frequency indexes for. */
const AAC_RATES = [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000] as const

export const aacEncoder = ffmpegEncoder({
  format: 'aac',
  contentType: 'audio/aac',
  sampleRates: AAC_RATES,
  // ADTS: every frame carries its own header, so a stream can be played from its first bytes.
  args: (o) => ['-c:a', 'aac', '-b:a', `${Math.round((o.bitrate ?? 64_000) / 1000)}k`, '-f', 'adts'],
  // ffmpeg's AAC encoder primes with 1024 samples that an ADTS stream cannot tell a decoder to drop.
  delaySamples: 1024,
})

export const flacEncoder = ffmpegEncoder({
  format: 'flac',
  contentType: 'audio/flac',
  args: () => ['-c:a', 'flac', '-f', 'flac'],
})

function ffmpegEncoder(codec: FfmpegCodec): AudioEncoder {
  return {
    format: codec.format,
    contentType: codec.contentType,
    ...(codec.sampleRates && { sampleRates: codec.sampleRates }),
    defaultSampleRate: 24000,
    ...(codec.delaySamples !== undefined && { delaySamples: codec.delaySamples }),
    create: (options) => startFfmpeg(codec, options),
  }
}

function startFfmpeg(codec: FfmpegCodec, options: EncoderOptions): EncoderSession {
  assertSampleRate(codec.format, options.sampleRate)
  const child = spawn('ffmpeg', [
    '-hide_banner', '-loglevel', 'error', '-nostdin',
    // Raw input needs no probing; without these ffmpeg buffers input before it starts encoding (~0.15 s more).
    '-probesize', '32', '-analyzeduration', '0', '-fflags', '+nobuffer',
    '-f', 's16le', '-ar', String(options.sampleRate), '-ac', '1', '-i', 'pipe:0',
    ...codec.args(options), '-flush_packets', '1', 'pipe:1',
  ], { stdio: ['pipe', 'pipe', 'pipe'] })
  let stderr = ''
  child.stderr.on('data', (d: Buffer) => void (stderr = (stderr + d.toString()).slice(-2000)))
  // A consumer that stopped early closes stdin on a process that is already gone: not an error.
  child.stdin.on('error', () => {})
  const exited = new Promise<{ code: number | null; spawnError?: Error }>((resolve) => {
    child.once('error', (spawnError) => resolve({ code: null, spawnError }))
    child.once('close', (code) => resolve({ code }))
  })

  async function* output(): AsyncGenerator<Uint8Array> {
    let done = false
    try {
      for await (const chunk of child.stdout) yield new Uint8Array(chunk as Buffer)
      const { code, spawnError } = await exited
      if (spawnError) throw new SpeechError('unavailable', `[${codec.format}] cannot start ffmpeg (${spawnError.message}); install Debian's ffmpeg (scripts/ensure-deps.sh does)`, { cause: spawnError })
      if (code !== 0) throw new SpeechError('internal_error', `[${codec.format}] ffmpeg exited with ${code}: ${stderr.trim()}`)
      done = true
    } finally {
      if (!done) child.kill('SIGKILL')
    }
  }

  return {
    push(samples) {
      if (samples.length > 0 && child.stdin.writable) child.stdin.write(Buffer.from(toS16le(samples)))
      return new Uint8Array(0)
    },
    end() {
      child.stdin.end()
      return new Uint8Array(0)
    },
    output: output(),
  }
}
