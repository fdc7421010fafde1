import { FishAudioClient, type FishAudioError, UnprocessableEntityError } from 'fish-audio'
import { ASRRequest, Session } from 'fish-audio-sdk'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { toWav } from './support/asr-speech.js'
import { corpusWer } from '../src/asr/wer.js'
import { startTestServer, type TestServer } from './helpers/app.js'
import { ffmpeg, SENTENCES, segmentProblems, ttsAll, withPauses, type Arranged } from './helpers/asr-audio.js'

/**
 * The official npm clients, unmodified, against a listening Parla: multipart (`fish-audio`) and MessagePack
 * (`fish-audio-sdk`).
 */
const TEXTS = [SENTENCES[3], SENTENCES[12], SENTENCES[22]]

let s: TestServer
/** Three sentences with pauses, about 14 s. */
let spoken: Arranged
let wav: Uint8Array
let seconds: number

const SLOW = 120_000

beforeAll(async () => {
  s = await startTestServer()
  await s.listen()
  spoken = withPauses(await ttsAll(s, TEXTS), TEXTS)
  wav = toWav(spoken.samples, spoken.sampleRate)
  seconds = spoken.samples.length / spoken.sampleRate
}, SLOW)

afterAll(async () => s?.close())

/** The transcript is right: pooled WER over the three sentences, and the words of the last one. */
function expectTranscript(text: string): void {
  expect(corpusWer([{ reference: TEXTS.join(' '), hypothesis: text }]).wer, text).toBeLessThanOrEqual(0.1)
  expect(text.toLowerCase()).toContain('newspaper')
  expect(text).toMatch(/^[A-Z].*\.$/)
}

describe('npm fish-audio: speechToText.convert (multipart)', { timeout: SLOW }, () => {
  it('transcribes a WAV with timestamps: text, duration in seconds, segments on the speech', async () => {
    const client = new FishAudioClient({ apiKey: s.alice, baseUrl: s.url })
    const audio = new File([wav], 'three.wav')
    const result = await client.speechToText.convert({ audio, language: 'en', ignore_timestamps: false })
    expectTranscript(result.text)
    // Seconds, as the docs say (the Python SDK's comment says milliseconds; Parla follows the docs).
    expect(result.duration).toBeGreaterThan(10)
    expect(Math.abs(result.duration - seconds)).toBeLessThanOrEqual(0.01)
    expect(result.segments.length).toBeGreaterThanOrEqual(3)
    expect(segmentProblems(result.segments, spoken.truth)).toEqual([])
    expect((result as unknown as { language: string }).language).toBe('en')
  })

  it('leaves segments empty by default and with ignore_timestamps: true (an MP3 upload)', async () => {
    const client = new FishAudioClient({ apiKey: s.alice, baseUrl: s.url })
    const mp3 = await ffmpeg(wav, ['-c:a', 'libmp3lame', '-b:a', '64k'], 'mp3')
    const byDefault = await client.speechToText.convert({ audio: new File([mp3], 'three.mp3') })
    const ignored = await client.speechToText.convert({ audio: new File([mp3], 'three.mp3'), ignore_timestamps: true })
    expect(byDefault.segments).toEqual([])
    expect(ignored).toEqual(byDefault)
    expectTranscript(byDefault.text)
    expect(Math.abs(byDefault.duration - seconds)).toBeLessThanOrEqual(0.05)
  })

  it('reports a non-audio file as UnprocessableEntityError with the 422 list naming audio', async () => {
    const client = new FishAudioClient({ apiKey: s.alice, baseUrl: s.url })
    const audio = new File(['just some notes'], 'notes.txt')
    const err = await client.speechToText.convert({ audio }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(UnprocessableEntityError)
    expect((err as FishAudioError).statusCode).toBe(422)
    expect((err as FishAudioError).body).toEqual([{
      loc: ['body', 'audio'],
      type: 'value_error',
      msg: "file 'notes.txt' is not audio: it looks like plain text; send WAV, MP3, Ogg Opus/Vorbis, FLAC or M4A",
      in: 'body',
    }])
  })
})

describe('npm fish-audio-sdk: Session.asr (MessagePack)', { timeout: SLOW }, () => {
  it('transcribes with ignoreTimestamps false; nil language and nil ignore_timestamps give no segments', async () => {
    const session = new Session(s.bob, s.url)
    try {
      const timed = await session.asr(new ASRRequest(Buffer.from(wav), 'en', false))
      expectTranscript(timed.text)
      expect(Math.abs(timed.duration - seconds)).toBeLessThanOrEqual(0.01)
      expect(timed.segments.length).toBeGreaterThanOrEqual(3)
      expect(segmentProblems(timed.segments, spoken.truth)).toEqual([])

      // `new ASRRequest(audio)` sends {language: nil, ignore_timestamps: nil}: detected language, no segments.
      const plain = await session.asr(new ASRRequest(Buffer.from(wav)))
      expect(plain).toEqual({ text: timed.text, duration: timed.duration, segments: [] })
      const ignored = await session.asr(new ASRRequest(Buffer.from(wav), undefined, true))
      expect(ignored.segments).toEqual([])
    } finally {
      session.close()
    }
  })

  it('reads a plain Uint8Array as the same audio (msgpack-lite sends it as extension type 0x12, not bin)', async () => {
    const session = new Session(s.bob, s.url)
    try {
      const fromBuffer = await session.asr(new ASRRequest(Buffer.from(wav), 'en', false))
      // The SDK's type says Buffer; JavaScript callers pass what fetch().arrayBuffer() gives them.
      const fromBytes = await session.asr(new ASRRequest(new Uint8Array(wav) as Buffer, 'en', false))
      expect(fromBytes).toEqual(fromBuffer)
      expectTranscript(fromBytes.text)
    } finally {
      session.close()
    }
  })

  it('gets the 413 message for audio over 20 MB', async () => {
    const quiet = vi.spyOn(console, 'error').mockImplementation(() => {})
    const session = new Session(s.bob, s.url)
    try {
      const err = await session.asr(new ASRRequest(Buffer.alloc(20_000_001))).catch((e: unknown) => e)
      expect(err).toMatchObject({
        name: 'HttpCodeError',
        status: 413,
        message: '413 audio is larger than 20000000 bytes (the limit is 20 MB); split the recording and send the parts one by one',
      })
    } finally {
      session.close()
      quiet.mockRestore()
    }
  })
})
