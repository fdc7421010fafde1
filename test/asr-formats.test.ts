import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { toWav } from './support/asr-speech.js'
import { corpusWer } from '../src/asr/wer.js'
import { decodeAudio } from '../src/audio/decode.js'
import { startTestServer, type TestServer } from './helpers/app.js'
import {
  ffmpeg, SENTENCES, segmentProblems, ttsAll, withPauses, type Arranged, type Segment,
} from './helpers/asr-audio.js'

/**
 * Parla's own TTS (festival, the default voice) reads 24 sentences; they are joined with pauses of zeros, made
 * into every upload format with ffmpeg, and sent to `/v1/asr` as multipart. Each lossy format must come back
 * with a pooled word error rate of at most 10 %, the file's duration in seconds, and segments on the known
 * speech. Lossless encodings (FLAC, float and 24-bit WAV) must decode to the 16-bit samples (within one step),
 * so they are not recognized at full length again: the same audio would give the same transcript.
 */
const FORMATS: readonly { name: string, ext: string, args: readonly string[] }[] = [
  { name: 'WAV 16-bit', ext: 'wav', args: [] },
  { name: 'MP3 64 kbps', ext: 'mp3', args: ['-c:a', 'libmp3lame', '-b:a', '64k'] },
  { name: 'Ogg Opus 24 kbps', ext: 'opus', args: ['-c:a', 'libopus', '-b:a', '24k'] },
  { name: 'Ogg Vorbis q2', ext: 'ogg', args: ['-c:a', 'libvorbis', '-q:a', '2'] },
  { name: 'M4A/AAC 64 kbps', ext: 'm4a', args: ['-c:a', 'aac', '-b:a', '64k'] },
  { name: 'WebM/Opus 48 kbps', ext: 'webm', args: ['-c:a', 'libopus', '-b:a', '48k'] },
]

interface AsrBody {
  text: string
  duration: number
  segments: Segment[]
  language: string
}

/** Each test recognizes about 70 s of speech: seconds on an idle two-core machine, far more on a busy one. */
const SLOW = 180_000

let s: TestServer
/** All 24 sentences with 1.5–2.5 s pauses: about 110 s at 44.1 kHz (the TTS default rate). */
let spoken: Arranged
let wav: Uint8Array

async function transcribe(bytes: Uint8Array, filename: string): Promise<AsrBody> {
  const form = new FormData()
  form.append('audio', new Blob([bytes]), filename)
  form.append('ignore_timestamps', 'false')
  const res = await fetch(`${s.url}/v1/asr`, { method: 'POST', body: form, headers: s.asAlice })
  const body = (await res.json()) as AsrBody
  expect(res.status, JSON.stringify(body)).toBe(200)
  return body
}

beforeAll(async () => {
  s = await startTestServer()
  await s.listen()
  spoken = withPauses(await ttsAll(s, SENTENCES, 44_100), SENTENCES)
  wav = toWav(spoken.samples, spoken.sampleRate)
}, SLOW)

afterAll(async () => s?.close())

describe('POST /v1/asr on festival speech in every upload format', { timeout: SLOW }, () => {
  it.each(FORMATS)('$name: WER ≤ 10 % over 24 sentences, duration in seconds, segments on the speech', async (f) => {
    const { ext, args } = f
    const bytes = ext === 'wav' ? wav : await ffmpeg(wav, args, ext)
    const body = await transcribe(bytes, `sentences.${ext}`)
    const seconds = spoken.samples.length / spoken.sampleRate
    expect(body.duration).toBeGreaterThan(100)
    expect(Math.abs(body.duration - seconds)).toBeLessThanOrEqual(0.05)
    expect(body.language).toBe('en')

    const pooled = corpusWer([{ reference: SENTENCES.join(' '), hypothesis: body.text }])
    expect(pooled.words).toBeGreaterThan(240)
    expect(pooled.wer, `WER ${(pooled.wer * 100).toFixed(1)} %: ${body.text}`).toBeLessThanOrEqual(0.1)
    expect(body.text).toMatch(/^[A-Z].*[.?]$/)
    expect(body.text).toBe(body.segments.map((x) => x.text).join(' '))

    // The sentences sit 1.5 s or more apart in zeros: every segment starts and ends on a sentence's sound.
    expect(segmentProblems(body.segments, spoken.truth, 0.3)).toEqual([])
    body.segments.slice(1).forEach((x, i) => expect(x.start).toBeGreaterThanOrEqual(body.segments[i]!.end))
  })

  const LOSSLESS: readonly { name: string, ext: string, args: readonly string[] }[] = [
    { name: 'FLAC', ext: 'flac', args: ['-c:a', 'flac'] },
    { name: 'float WAV', ext: 'wav', args: ['-c:a', 'pcm_f32le'] },
    { name: '24-bit WAV', ext: 'wav', args: ['-c:a', 'pcm_s24le'] },
  ]

  it('FLAC, float and 24-bit WAV decode to the 16-bit samples (±1 step), and give the same answer through the API', async () => {
    const reference = await decodeAudio(wav, { sampleType: 'int16' })
    // Two sentences through the API for each encoding: the upload path, sniffing and answer; equality of the
    // whole answer (text, segments, duration) is the point, recognition quality is the 24-sentence test's.
    const end = Math.round((spoken.truth[1]!.end + 1) * spoken.sampleRate)
    const short = toWav(spoken.samples.subarray(0, end), spoken.sampleRate)
    const s16 = await transcribe(short, 'two.wav')
    expect(s16.segments.length).toBeGreaterThanOrEqual(2)
    for (const f of LOSSLESS) {
      const whole = await decodeAudio(await ffmpeg(wav, f.args, f.ext), { sampleType: 'int16' })
      expect(whole.sampleRate, f.name).toBe(reference.sampleRate)
      // Within one step of 16 bits: the decoders hand out floats, and a few round back to the neighbouring value.
      let furthest = 0
      reference.samples.forEach((x, i) => (furthest = Math.max(furthest, Math.abs(whole.samples[i]! - x))))
      expect(whole.samples.length, f.name).toBe(reference.samples.length)
      expect(furthest, f.name).toBeLessThanOrEqual(1)
      expect(await transcribe(await ffmpeg(short, f.args, f.ext), `two.${f.ext}`), f.name).toEqual(s16)
    }
  })
})
