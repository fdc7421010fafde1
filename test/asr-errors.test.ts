import { encode } from '@msgpack/msgpack'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { toWav } from './support/asr-speech.js'
import { startTestServer, type TestServer } from './helpers/app.js'
import { ffmpeg, silentWav8 } from './helpers/asr-audio.js'

/** Every way `/v1/asr` refuses a request, with the exact status and body. */
let s: TestServer

const TOO_LARGE = {
  status: 413,
  message: 'audio is larger than 20000000 bytes (the limit is 20 MB); split the recording and send the parts one by one',
}
const ACCEPTED = 'send WAV, MP3, Ogg Opus/Vorbis, FLAC or M4A'
const issue = (field: string, type: string, msg: string) => [{ loc: ['body', field], type, msg, in: 'body' }]
/** Audio that cannot be used is the 422 list naming `audio`, like every 422 of the Fish surface. */
const unusable = (msg: string, type = 'value_error') => issue('audio', type, msg)
const silence = (seconds: number) => toWav(new Float32Array(Math.round(seconds * 16_000)), 16_000)

type Body = NonNullable<Parameters<typeof fetch>[1]>['body']

async function send(body: Body, headers: Record<string, string> = {}, auth: Record<string, string> = s.asAlice) {
  const res = await fetch(`${s.url}/v1/asr`, { method: 'POST', body, headers: { ...auth, ...headers } })
  const text = await res.text()
  return { status: res.status, type: res.headers.get('content-type'), body: JSON.parse(text) as unknown }
}

function form(parts: readonly (readonly [string, Uint8Array | string, string?])[]): FormData {
  const f = new FormData()
  for (const [name, value, filename] of parts) {
    if (typeof value === 'string' && filename === undefined) f.append(name, value)
    else f.append(name, new Blob([value]), filename ?? 'audio.bin')
  }
  return f
}

const msgpack = (value: unknown) => send(encode(value), { 'content-type': 'application/msgpack' })

/** The form as a stream: sent chunked, without a Content-Length, as a client streaming from disk does. */
function chunked(f: FormData): Promise<Awaited<ReturnType<typeof send>>> {
  const encoded = new Request('http://localhost/', { method: 'POST', body: f })
  const init = { duplex: 'half', headers: { 'content-type': encoded.headers.get('content-type')! } }
  return sendInit(encoded.body, init)
}

async function sendInit(body: Body, init: Record<string, unknown>) {
  const headers = { ...s.asAlice, ...(init.headers as Record<string, string>) }
  const res = await fetch(`${s.url}/v1/asr`, { ...init, method: 'POST', body, headers })
  return { status: res.status, type: res.headers.get('content-type'), body: JSON.parse(await res.text()) as unknown }
}

const SLOW = 120_000

beforeAll(async () => {
  s = await startTestServer()
  await s.listen()
}, SLOW)

afterAll(async () => s?.close())

describe('POST /v1/asr errors', { timeout: SLOW }, () => {
  it('413 for audio over 20 MB: multipart, MessagePack and base64 JSON; 20 MB exactly is read', async () => {
    const big = new Uint8Array(20_000_001)
    expect(await send(form([['audio', big, 'big.wav']]))).toEqual({
      status: 413,
      type: 'application/json; charset=utf-8',
      body: TOO_LARGE,
    })
    expect(await msgpack({ audio: big })).toMatchObject({ status: 413, body: TOO_LARGE })
    // Far past the body limit: refused while reading, with the same message.
    expect(await msgpack({ audio: new Uint8Array(30_000_000) })).toMatchObject({ status: 413, body: TOO_LARGE })
    const json = JSON.stringify({ audio: Buffer.from(big).toString('base64') })
    expect(await send(json, { 'content-type': 'application/json' })).toMatchObject({ status: 413, body: TOO_LARGE })
    expect(await chunked(form([['audio', big, 'big.wav']]))).toMatchObject({ status: 413, body: TOO_LARGE })
    // Streamed without a Content-Length, refused while reading past the limit.
    const stream = new Blob([encode({ audio: new Uint8Array(30_000_000) })]).stream()
    expect(await sendInit(stream, { duplex: 'half', headers: { 'content-type': 'application/msgpack' } }))
      .toMatchObject({ status: 413, body: TOO_LARGE })
    // At the limit the size is fine; zeros are then not audio.
    const notAudio = (what: string) => ({
      status: 422,
      body: unusable(`${what} is not in a recognised audio format (it starts with 00 00 00 00 00 00 00 00); ${ACCEPTED}`),
    })
    expect(await msgpack({ audio: new Uint8Array(20_000_000) })).toMatchObject(notAudio('the audio'))
    const exact = form([['audio', new Uint8Array(20_000_000), 'exact.wav']])
    expect(await send(exact)).toMatchObject(notAudio("file 'exact.wav'"))
    expect(await chunked(exact)).toMatchObject(notAudio("file 'exact.wav'"))
  })

  it('reads a chunked multipart upload (no Content-Length) whole', async () => {
    // 86 KB, more than the first 64 KB buffer; 0.90 s exactly: the whole file was read, neither cut short nor
    // padded by the growing buffer.
    const wav = toWav(new Float32Array(43_200), 48_000)
    expect(await chunked(form([['extra', silence(0.2), 'x.wav'], ['audio', wav, 'short.wav']]))).toMatchObject({
      status: 422,
      body: unusable('audio is 0.90 s long; send at least 1 second of audio', 'too_short'),
    })
  })

  it('422 for audio under 1 second', async () => {
    expect(await send(form([['audio', silence(0.5), 'short.wav']]))).toMatchObject({
      status: 422,
      body: unusable('audio is 0.50 s long; send at least 1 second of audio', 'too_short'),
    })
    expect(await msgpack({ audio: silence(0.99) })).toMatchObject({
      status: 422,
      body: unusable('audio is 0.99 s long; send at least 1 second of audio', 'too_short'),
    })
  })

  it('422 for audio over 60 minutes: a 61-minute WAV (by its header), a 4-hour MP3 (stops at the limit)', async () => {
    const wav = silentWav8(61 * 60)
    expect(wav.length).toBeLessThan(4_000_000)
    expect(await send(form([['audio', wav, 'long.wav']]))).toMatchObject({
      status: 422,
      body: unusable("file 'long.wav' is 3660.0 s long; the limit is 3600 s"),
    })
    // 8 kbit/s: four hours in 14 MB, within the 20 MB limit; decoded in full it would be 14,400 s of audio.
    const mp3 = await ffmpeg(silentWav8(4 * 3600), ['-ar', '8000', '-c:a', 'libmp3lame', '-b:a', '8k'], 'mp3')
    expect(mp3.length).toBeLessThan(20_000_000)
    const res = await msgpack({ audio: mp3 })
    expect(res).toMatchObject({ status: 422, body: [{ loc: ['body', 'audio'], type: 'value_error', in: 'body' }] })
    const msg = (res.body as { msg: string }[])[0]!.msg
    expect(msg).toMatch(
      /^the audio is longer than the limit of 3600 s \(decoding stopped at (\d+\.\d) s\); split the recording/)
    const stoppedAt = Number(/stopped at (\d+\.\d) s/.exec(msg)![1])
    expect(stoppedAt).toBeGreaterThan(3600)
    expect(stoppedAt).toBeLessThan(3660)
  })

  it('422 for two audio files in one request, or a pile of other files', async () => {
    const msg = 'send one audio file per request; split longer recordings and send them one by one'
    const one = { status: 422, body: issue('audio', 'value_error', msg) }
    expect(await send(form([['audio', silence(2), 'a.wav'], ['audio', silence(2), 'b.wav']]))).toMatchObject(one)
    const others = Array.from({ length: 5 }, (_, i) => ['extra', silence(1), `x${i}.wav`] as const)
    expect(await send(form([['audio', silence(2), 'a.wav'], ...others]))).toMatchObject(one)
  })

  it('422 listing the supported languages for any other language', async () => {
    const msg = (code: string) => `language '${code}' is not supported; supported: en (or omit it to detect)`
    expect(await send(form([['audio', silence(2), 'a.wav'], ['language', 'fr']]))).toMatchObject({
      status: 422,
      body: issue('language', 'enum', msg('fr')),
    })
    expect(await msgpack({ audio: silence(2), language: 'zh' })).toMatchObject({
      status: 422,
      body: issue('language', 'enum', msg('zh')),
    })
  })

  it('422 naming the format problem for files that are not (supported) audio', async () => {
    const cases: [Uint8Array, string, string][] = [
      [new TextEncoder().encode('Meeting notes: call Bob.'), 'notes.txt', `file 'notes.txt' is not audio: it looks like plain text; ${ACCEPTED}`],
      [new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]), 'photo.png', `file 'photo.png' is not audio: it looks like a PNG image; ${ACCEPTED}`],
      [gsmWav(), 'phone.wav', "file 'phone.wav' is a damaged or unsupported WAV: it is a WAV with GSM 6.10 data, which is not supported (use PCM, float, A-law or mu-law WAV)"],
      [new Uint8Array(0), 'empty.wav', "file 'empty.wav' is empty"],
      [truncatedMp3(), 'cut.mp3', "file 'cut.mp3' looks like MP3 but holds no decodable audio; it may be truncated or damaged"],
    ]
    for (const [bytes, name, msg] of cases) {
      const expected = { status: 422, body: unusable(msg) }
      expect(await send(form([['audio', bytes, name]])), name).toMatchObject(expected)
    }
  })

  it('422 for missing audio: multipart without the file, MessagePack without the key, no body', async () => {
    const missing = { status: 422, body: issue('audio', 'missing', "Field required: send the audio file as 'audio'") }
    expect(await send(form([['language', 'en']]))).toMatchObject(missing)
    expect(await send(form([['file', silence(2), 'a.wav']]))).toMatchObject(missing)
    expect(await msgpack({ language: 'en' })).toMatchObject(missing)
    expect(await msgpack({ audio: null })).toMatchObject(missing)
    expect(await send(undefined)).toMatchObject(missing)
  })

  it('422 for wrong field types', async () => {
    const bool = issue('ignore_timestamps', 'bool_type', 'ignore_timestamps must be a boolean, or the string "true" or "false"')
    const yes = form([['audio', silence(2), 'a.wav'], ['ignore_timestamps', 'yes']])
    expect(await send(yes)).toMatchObject({ status: 422, body: bool })
    expect(await msgpack({ audio: silence(2), ignore_timestamps: 1 })).toMatchObject({ status: 422, body: bool })
    expect(await msgpack({ audio: silence(2), language: 5 })).toMatchObject({
      status: 422,
      body: issue('language', 'string_type', 'language must be a language code string such as "en"'),
    })
    const bytes = {
      status: 422,
      body: issue('audio', 'bytes_type', 'audio must be binary: a file part, MessagePack bin, or a base64 string in JSON'),
    }
    expect(await msgpack({ audio: [1, 2, 3] })).toMatchObject(bytes)
    expect(await send(form([['audio', 'not a file']]))).toMatchObject(bytes)
    expect(await msgpack([silence(2)])).toMatchObject({
      status: 422,
      body: [{
        loc: ['body'],
        type: 'object_type',
        msg: 'the body must be a map with an "audio" field (MessagePack bin, or base64 in JSON)',
        in: 'body',
      }],
    })
  })

  it('400 for a malformed multipart or MessagePack body', async () => {
    const hint = 'send multipart/form-data with the boundary from the Content-Type header'
    expect(await send('garbage', { 'content-type': 'multipart/form-data' })).toMatchObject({
      status: 400,
      body: { status: 400, message: `Multipart body is malformed: Multipart: Boundary not found; ${hint}` },
    })
    const cut = '--xyz\r\nContent-Disposition: form-data; name="audio"; filename="a.wav"\r\n\r\nRIFF'
    expect(await send(cut, { 'content-type': 'multipart/form-data; boundary=xyz' })).toMatchObject({
      status: 400,
      body: {
        status: 400,
        message: `Multipart body is malformed: Part terminated early due to unexpected end of multipart data; ${hint}`,
      },
    })
    expect(await send(new Uint8Array([0xc1]), { 'content-type': 'application/msgpack' })).toMatchObject({
      status: 400,
      body: { status: 400, message: 'Body is not valid MessagePack: Unrecognized type byte: 0xc1' },
    })
  })

  it('415 for content types other than multipart, MessagePack and JSON', async () => {
    const msg = (type: string) =>
      `Content-Type '${type}' is not accepted by /v1/asr; send multipart/form-data with the file in the field ` +
      "'audio', or application/msgpack with {audio: <bin>}"
    for (const type of ['audio/wav', 'text/plain', 'application/x-www-form-urlencoded', 'application/octet-stream']) {
      expect(await send(silence(2), { 'content-type': type }), type).toEqual({
        status: 415,
        type: 'application/json; charset=utf-8',
        body: { status: 415, message: msg(type) },
      })
    }
  })

  it('401 without a valid API key, before the body is looked at', async () => {
    expect(await send(form([['audio', silence(2), 'a.wav']]), {}, {})).toEqual({
      status: 401,
      type: 'application/json; charset=utf-8',
      body: { status: 401, message: "Missing Authorization header; send 'Authorization: Bearer <API key>'" },
    })
    expect(await send('x', { 'content-type': 'text/plain' }, { authorization: 'Bearer nope' })).toMatchObject({
      status: 401,
      body: { status: 401, message: 'Invalid API key' },
    })
  })
})

/** A WAV header declaring GSM 6.10 (codec 0x0031), which Parla does not decode. */
function gsmWav(): Uint8Array {
  const wav = silence(2)
  new DataView(wav.buffer).setUint16(20, 0x0031, true)
  return wav
}

/** An MP3 frame header and nothing after it. */
function truncatedMp3(): Uint8Array {
  return new Uint8Array([0xff, 0xfb, 0x90, 0x64, 0, 0, 0, 0])
}
