/**
 * Speech for the `/v1/asr` tests: sentences spoken by Parla's own TTS (`POST /v1/tts`, default festival voice),
 * joined with known silences, and re-encoded with ffmpeg into the formats clients upload.
 */
import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import type { AudioBuffer } from '../../src/audio/types.js'
import { parseWav, SENTENCES, soundBounds, twoAtATime } from '../support/asr-speech.js'
import type { TestServer } from './app.js'

const run = promisify(execFile)

export { SENTENCES }

/** One sentence through `POST /v1/tts` (default voice: festival), as 16-bit WAV at `sampleRate`. */
export async function ttsSpeech(s: TestServer, text: string, sampleRate = 16_000): Promise<AudioBuffer> {
  const res = await s.app.inject({
    method: 'POST',
    url: '/v1/tts',
    headers: { ...s.asAlice, model: 's1' },
    payload: { text, format: 'wav', sample_rate: sampleRate },
  })
  if (res.statusCode !== 200) throw new Error(`TTS failed for "${text}": ${res.statusCode} ${res.body}`)
  const audio = parseWav(new Uint8Array(res.rawPayload))
  if (audio.sampleRate !== sampleRate || audio.samples.length < sampleRate / 2) {
    throw new Error(`TTS gave ${audio.samples.length} samples at ${audio.sampleRate} Hz for "${text}"`)
  }
  return audio
}

/** Every sentence, two at a time (festival runs one process per core). */
export function ttsAll(s: TestServer, texts: readonly string[], sampleRate = 16_000): Promise<AudioBuffer[]> {
  return twoAtATime(texts, (text) => ttsSpeech(s, text, sampleRate))
}

export interface Arranged {
  readonly samples: Float32Array
  readonly sampleRate: number
  /** Where each sentence's sound lies, seconds on the file's timeline. */
  readonly truth: { start: number, end: number, text: string }[]
}

/** Clips placed at `starts` (seconds) in `totalSeconds` of digital silence. */
export function arrange(
  clips: readonly AudioBuffer[], texts: readonly string[], starts: readonly number[], totalSeconds: number,
): Arranged {
  const sampleRate = clips[0]!.sampleRate
  const samples = new Float32Array(Math.round(totalSeconds * sampleRate))
  const truth = clips.map((clip, i) => {
    const at = Math.round(starts[i]! * sampleRate)
    if (clip.sampleRate !== sampleRate || at + clip.samples.length > samples.length) {
      throw new Error('arrange: clip does not fit')
    }
    samples.set(clip.samples, at)
    const b = soundBounds(clip.samples, sampleRate)
    return { start: at / sampleRate + b.start, end: at / sampleRate + b.end, text: texts[i]! }
  })
  return { samples, sampleRate, truth }
}

/** Clips one after another with pauses of zeros between them (1.5, 2, 2.5, 1.5 … s), 1 s before and after. */
export function withPauses(clips: readonly AudioBuffer[], texts: readonly string[]): Arranged {
  const starts: number[] = []
  let at = 1
  clips.forEach((clip, i) => {
    starts.push(at)
    at += clip.samples.length / clip.sampleRate + 1.5 + (i % 3) * 0.5
  })
  const last = clips[clips.length - 1]!
  return arrange(clips, texts, starts, starts[starts.length - 1]! + last.samples.length / last.sampleRate + 1)
}

/** Runs ffmpeg on `input` (any format it reads) with output options `args`; returns the output file's bytes. */
export async function ffmpeg(input: Uint8Array, args: readonly string[], ext: string): Promise<Uint8Array> {
  const dir = await mkdtemp(join(tmpdir(), 'parla-asr-'))
  try {
    await writeFile(join(dir, 'in.wav'), input)
    const out = join(dir, `out.${ext}`)
    await run('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', '-i', join(dir, 'in.wav'), ...args, out])
    return new Uint8Array(await readFile(out))
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/** `seconds` of digital silence as 8-bit WAV at 1 kHz (3.6 MB per hour): a cheap, genuinely long file. */
export function silentWav8(seconds: number, sampleRate = 1000): Uint8Array {
  const n = Math.round(seconds * sampleRate)
  const buf = Buffer.alloc(44 + n, 128) // unsigned 8-bit: 128 is zero
  buf.write('RIFF', 0, 'ascii')
  buf.writeUInt32LE(36 + n, 4)
  buf.write('WAVE', 8, 'ascii')
  buf.write('fmt ', 12, 'ascii')
  buf.writeUInt32LE(16, 16)
  buf.writeUInt16LE(1, 20)
  buf.writeUInt16LE(1, 22)
  buf.writeUInt32LE(sampleRate, 24)
  buf.writeUInt32LE(sampleRate, 28)
  buf.writeUInt16LE(1, 32)
  buf.writeUInt16LE(8, 34)
  buf.write('data', 36, 'ascii')
  buf.writeUInt32LE(n, 40)
  return new Uint8Array(buf.buffer, buf.byteOffset, buf.length)
}

export interface Segment {
  readonly text: string
  readonly start: number
  readonly end: number
}

/**
 * Where segments miss the known speech: every segment must lie on one sentence, and every sentence's first
 * segment must start, and its last end, within `tolerance` seconds of the sentence's sound. Empty when right.
 */
export function segmentProblems(segments: readonly Segment[], truth: Arranged['truth'], tolerance = 0.3): string[] {
  const problems: string[] = []
  const on = (s: Segment, t: Arranged['truth'][number]) => s.start >= t.start - tolerance && s.end <= t.end + tolerance
  for (const s of segments) {
    if (!truth.some((t) => on(s, t))) problems.push(`segment ${JSON.stringify(s)} lies on no sentence`)
  }
  for (const t of truth) {
    const mine = segments.filter((s) => on(s, t))
    const where = `"${t.text}" (${t.start.toFixed(2)}–${t.end.toFixed(2)} s)`
    if (mine.length === 0) problems.push(`no segment for ${where}`)
    else {
      const first = mine[0]!.start
      const last = mine[mine.length - 1]!.end
      if (Math.abs(first - t.start) > tolerance || Math.abs(last - t.end) > tolerance) {
        problems.push(`${where} has segments from ${first} to ${last} s`)
      }
    }
  }
  return problems
}
