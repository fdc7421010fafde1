import { FishAudioClient } from 'fish-audio'
import { Session, TTSRequest } from 'fish-audio-sdk'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { startTestServer, type TestServer } from './helpers/app.js'
import { decode, pcm16, probe, readAll, speechRmsDb, voicedSeconds, type Format } from './helpers/tts-audio.js'

/**
 * The official npm SDKs, unmodified, against a listening Parla: every format comes back playable. Output is
 * decoded and probed with ffmpeg/ffprobe (not Parla's code) and checked for sample rate, duration, sound and
 * bitrate.
 */
const TEXT = 'The weather today is calm and clear. Trains are running on time, and the roads are quiet.'

interface Case {
  readonly format: Format
  readonly sample_rate?: number
  readonly mp3_bitrate?: 64 | 128 | 192
  readonly opus_bitrate?: number
}

let s: TestServer
/** Duration of TEXT as Parla speaks it (pcm through app.inject), the reference for every format. */
let referenceSeconds: number
/** What reached the service: the tag dialect chosen from the `model` header, and the body's content type. */
const seen: { dialect: string; contentType: string }[] = []

beforeAll(async () => {
  s = await startTestServer()
  s.app.addHook('onRequest', async (request) => {
    if (request.url === '/v1/tts') seen.push({ dialect: '', contentType: String(request.headers['content-type']) })
  })
  const prepare = s.deps.tts.prepare.bind(s.deps.tts)
  vi.spyOn(s.deps.tts, 'prepare').mockImplementation((params, ...rest) => {
    seen[seen.length - 1] = { ...seen[seen.length - 1]!, dialect: params.dialect }
    return prepare(params, ...rest)
  })
  await s.listen()
  const res = await s.app.inject({ method: 'POST', url: '/v1/tts', headers: s.asAlice, payload: { text: TEXT, format: 'pcm', sample_rate: 16000 } })
  expect(res.statusCode).toBe(200)
  referenceSeconds = pcm16(res.rawPayload).length / 16000
  expect(referenceSeconds).toBeGreaterThan(3.5)
  expect(referenceSeconds).toBeLessThan(12)
})
afterAll(async () => {
  vi.restoreAllMocks()
  await s.close()
})

/** Decodes with ffmpeg and checks everything the case determines. */
async function expectPlayable(bytes: Buffer, c: Case): Promise<void> {
  const rate = c.sample_rate ?? (c.format === 'opus' ? 48000 : 44100)
  if (c.format !== 'pcm') {
    const info = await probe(bytes, c.format)
    expect(info.codec).toBe({ wav: 'pcm_s16le', mp3: 'mp3', opus: 'opus' }[c.format])
    expect(info.sampleRate).toBe(rate)
    expect(info.channels).toBe(1)
  }
  const audio = await decode(bytes, c.format, rate)
  expect(audio.sampleRate).toBe(rate)
  // Same speech whatever the format: mp3 may add a frame of padding, nothing more.
  expect(Math.abs(audio.seconds - referenceSeconds)).toBeLessThan(0.1)
  // Speech, not silence or noise: a speaking level, and voiced for most of its length.
  expect(speechRmsDb(audio.samples, rate)).toBeGreaterThan(-30)
  expect(voicedSeconds(audio.samples, rate)).toBeGreaterThan(referenceSeconds * 0.5)
  const bitrate = c.format === 'mp3' ? (c.mp3_bitrate ?? 128) * 1000 : c.format === 'opus' && c.opus_bitrate && c.opus_bitrate > 0
    ? (c.opus_bitrate < 1000 ? c.opus_bitrate * 1000 : c.opus_bitrate) : undefined
  if (bitrate) {
    const measured = (bytes.length * 8) / audio.seconds
    expect(measured).toBeGreaterThan(bitrate * 0.75)
    expect(measured).toBeLessThan(bitrate * 1.25)
  }
}

const name = (c: Case) => Object.entries(c).map(([k, v]) => `${k} ${v}`).join(', ')

const FORMATS: readonly Case[] = [{ format: 'wav' }, { format: 'pcm' }, { format: 'mp3' }, { format: 'opus' }]
const rates = (format: Format): Case[] => [16000, 22050, 24000].map((r) => ({ format, sample_rate: r }))

describe('npm fish-audio: textToSpeech.convert (MessagePack body, model header s1)', () => {
  // opus_bitrate in bps (the docs, LiveKit); the SDK's type lists only the kbps values, which the other SDK sends.
  const CASES: readonly Case[] = [
    ...FORMATS,
    { format: 'mp3', mp3_bitrate: 64 },
    { format: 'mp3', mp3_bitrate: 192 },
    ...[24000, 32000, 48000, 64000].map((b): Case => ({ format: 'opus', opus_bitrate: b })),
    ...rates('wav'),
  ]

  it.each(CASES.map((c) => [name(c), c] as const))('%s', async (_, c) => {
    const client = new FishAudioClient({ apiKey: s.alice, baseUrl: s.url })
    const stream = await client.textToSpeech.convert({ text: TEXT, ...c } as Parameters<typeof client.textToSpeech.convert>[0])
    const bytes = await readAll(stream)
    expect(seen.at(-1)).toEqual({ dialect: 's1', contentType: 'application/msgpack' })
    await expectPlayable(bytes, c)
  })
})

describe('npm fish-audio-sdk: Session.tts (JSON body, no model header)', () => {
  let session: Session
  beforeAll(() => {
    session = new Session(s.bob, s.url)
    // The SDK logs every request it sends.
    vi.spyOn(console, 'log').mockImplementation(() => {})
  })
  afterAll(() => session.close())

  const SDK_CASES: readonly Case[] = [
    ...FORMATS,
    { format: 'mp3', mp3_bitrate: 128 },
    ...[24, 32, 48, 64, -1000].map((b): Case => ({ format: 'opus', opus_bitrate: b })),
    ...rates('pcm'),
  ]
  it.each(SDK_CASES.map((c) => [name(c), c] as const))('%s', async (_, c) => {
    const request = new TTSRequest(TEXT, {
      format: c.format,
      ...(c.sample_rate !== undefined && { sampleRate: c.sample_rate }),
      ...(c.mp3_bitrate !== undefined && { mp3Bitrate: c.mp3_bitrate }),
      ...(c.opus_bitrate !== undefined && { opusBitrate: c.opus_bitrate as 24 | 32 | 48 | 64 | -1000 }),
    })
    const bytes = await readAll(session.tts(request))
    expect(seen.at(-1)).toEqual({ dialect: 's2-pro', contentType: 'application/json' })
    await expectPlayable(bytes, c)
  })
})
