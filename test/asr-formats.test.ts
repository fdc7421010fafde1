import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { toWav } from './support/asr-speech.js'
import { corpusWer } from '../src/asr/wer.js'
import { startTestServer, type TestServer } from './helpers/app.js'
import {
  ffmpeg, SENTENCES, segmentProblems, ttsAll, withPauses, type Arranged, type Segment,
} from './helpers/asr-audio.js'

/**
 * Parla's own TTS (festival, the default voice) reads 24 sentences; they are joined with pauses of zeros, made
 * into every upload format with ffmpeg, and sent to `/v1/asr` as multipart. Each format must come back with a
 * pooled word error rate of at most 10 %, the file's duration in seconds, and segments on the known speech.
 */
const FORMATS: readonly { name: string, ext: string, args: readonly string[] }[] = [
  { name: 'WAV 16-bit', ext: 'wav', args: [] },
  { name: 'MP3 64 kbps', ext: 'mp3', args: ['-c:a', 'libmp3lame', '-b:a', '64k'] },
  { name: 'Ogg Opus 24 kbps', ext: 'opus', args: ['-c:a', 'libopus', '-b:a', '24k'] },
  { name: 'Ogg Vorbis q2', ext: 'ogg', args: ['-c:a', 'libvorbis', '-q:a', '2'] },
  { name: 'FLAC', ext: 'flac', args: ['-c:a', 'flac'] },
  { name: 'M4A/AAC 64 kbps', ext: 'm4a', args: ['-c:a', 'aac', '-b:a', '64k'] },
  { name: 'WebM/Opus 48 kbps', ext: 'webm', args: ['-c:a', 'libopus', '-b:a', '48k'] },
]

interface AsrBody {
  text: string
  duration: number
  segments: Segment[]
  language: string
}

/** Each test decodes about 70 s of speech: seconds on an idle two-core machine, far more on a busy one. */
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

  it('float and 24-bit WAV hold the same samples as 16-bit WAV and give the same transcript', async () => {
    // Six sentences keep this cheap; the 16-bit source makes all three exactly equal after decoding.
    const end = Math.round((spoken.truth[5]!.end + 1) * spoken.sampleRate)
    const short = toWav(spoken.samples.subarray(0, end), spoken.sampleRate)
    const [s16, f32, s24] = await Promise.all([
      transcribe(short, 'six.wav'),
      ffmpeg(short, ['-c:a', 'pcm_f32le'], 'wav').then((b) => transcribe(b, 'six-float.wav')),
      ffmpeg(short, ['-c:a', 'pcm_s24le'], 'wav').then((b) => transcribe(b, 'six-24.wav')),
    ])
    expect(s16.segments.length).toBeGreaterThanOrEqual(6)
    // Recognition quality is the 24-sentence test's job; this one is about the encodings being equivalent.
    const pooled = corpusWer([{ reference: SENTENCES.slice(0, 6).join(' '), hypothesis: s16.text }])
    expect(pooled.wer).toBeLessThanOrEqual(0.2)
    expect(f32).toEqual(s16)
    expect(s24).toEqual(s16)
  })
})
