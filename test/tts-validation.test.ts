import { encode } from '@msgpack/msgpack'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestServer, type TestServer } from './helpers/app.js'
import { voiceWav } from './helpers/voice-audio.js'

/**
 * Every rule of the `POST /v1/tts` request: bounds, enums and types answer 422 as an array naming the field;
 * optional fields take nil; unknown keys are ignored; the voice is checked before any audio byte.
 */
const MAX_TEXT = 500
let s: TestServer

beforeAll(async () => {
  s = await startTestServer({ maxTextLength: MAX_TEXT })
})
afterAll(async () => s.close())

type Body = Record<string, unknown>

async function post(body: Body | Buffer, headers: Record<string, string> = {}) {
  const msgpack = Buffer.isBuffer(body)
  return s.app.inject({
    method: 'POST',
    url: '/v1/tts',
    headers: { ...s.asAlice, 'content-type': msgpack ? 'application/msgpack' : 'application/json', ...headers },
    payload: msgpack ? body : JSON.stringify(body),
  })
}

/** A short, cheap request that succeeds. */
const OK: Body = { text: 'Hi there.', format: 'pcm', sample_rate: 16000 }

async function expectInvalid(body: Body | Buffer, loc: readonly string[]): Promise<void> {
  const res = await post(body)
  expect(res.statusCode, res.body).toBe(422)
  const issues = res.json() as { loc: string[]; type: string; msg: string }[]
  expect(Array.isArray(issues)).toBe(true)
  expect(issues.map((i) => i.loc)).toContainEqual(loc)
  for (const issue of issues) expect(issue.msg.length).toBeGreaterThan(0)
}

async function expectAudio(body: Body | Buffer, headers: Record<string, string> = {}): Promise<Buffer> {
  const res = await post(body, headers)
  expect(res.statusCode, res.body.slice(0, 300)).toBe(200)
  expect(res.headers['content-type']).toMatch(/^audio\//)
  expect(res.rawPayload.length).toBeGreaterThan(8000) // > 0.25 s of 16 kHz pcm
  return res.rawPayload
}

describe('bounds: 422 naming the field', () => {
  const CASES: readonly [string, Body, string[]][] = [
    ['temperature < 0', { temperature: -0.1 }, ['body', 'temperature']],
    ['temperature > 1', { temperature: 1.1 }, ['body', 'temperature']],
    ['top_p < 0', { top_p: -0.1 }, ['body', 'top_p']],
    ['top_p > 1', { top_p: 1.5 }, ['body', 'top_p']],
    ['prosody.speed < 0.5', { prosody: { speed: 0.49 } }, ['body', 'prosody', 'speed']],
    ['prosody.speed > 2', { prosody: { speed: 2.01 } }, ['body', 'prosody', 'speed']],
    ['prosody.volume < -20', { prosody: { volume: -21 } }, ['body', 'prosody', 'volume']],
    ['prosody.volume > 20', { prosody: { volume: 21 } }, ['body', 'prosody', 'volume']],
    ['chunk_length < 100', { chunk_length: 99 }, ['body', 'chunk_length']],
    ['chunk_length > 300', { chunk_length: 301 }, ['body', 'chunk_length']],
    ['chunk_length not an integer', { chunk_length: 150.5 }, ['body', 'chunk_length']],
    ['sample_rate < 8000', { sample_rate: 7999 }, ['body', 'sample_rate']],
    ['sample_rate > 48000', { sample_rate: 96000 }, ['body', 'sample_rate']],
    ['mp3_bitrate not 64/128/192', { format: 'mp3', mp3_bitrate: 96 }, ['body', 'mp3_bitrate']],
    ['opus_bitrate not a listed value', { format: 'opus', opus_bitrate: 16000 }, ['body', 'opus_bitrate']],
    ['max_new_tokens < 1', { max_new_tokens: 0 }, ['body', 'max_new_tokens']],
    ['repetition_penalty < 0', { repetition_penalty: -1 }, ['body', 'repetition_penalty']],
    ['repetition_penalty > 10', { repetition_penalty: 11 }, ['body', 'repetition_penalty']],
    ['min_chunk_length < 0', { min_chunk_length: -1 }, ['body', 'min_chunk_length']],
    ['min_chunk_length > 100', { min_chunk_length: 101 }, ['body', 'min_chunk_length']],
    ['early_stop_threshold < 0', { early_stop_threshold: -0.5 }, ['body', 'early_stop_threshold']],
    ['early_stop_threshold > 1', { early_stop_threshold: 1.5 }, ['body', 'early_stop_threshold']],
  ]
  it.each(CASES)('%s', async (_, extra, loc) => expectInvalid({ ...OK, ...extra }, loc))

  it('the limits themselves are accepted', async () => {
    await expectAudio({
      ...OK, temperature: 1, top_p: 0, prosody: { speed: 2, volume: -20 }, chunk_length: 300, min_chunk_length: 100,
      repetition_penalty: 10, max_new_tokens: 1, early_stop_threshold: 0,
    })
  })
})

describe('enums and types', () => {
  const CASES: readonly [string, Body, string[]][] = [
    ['format flac', { format: 'flac' }, ['body', 'format']],
    ['latency fast', { latency: 'fast' }, ['body', 'latency']],
    ['text a number', { text: 42 }, ['body', 'text']],
    ['text missing', { text: undefined }, ['body', 'text']],
    ['chunk_length a string', { chunk_length: '200' }, ['body', 'chunk_length']],
    ['normalize a string', { normalize: 'yes' }, ['body', 'normalize']],
    ['temperature a string', { temperature: '0.7' }, ['body', 'temperature']],
    ['prosody a string', { prosody: 'fast' }, ['body', 'prosody']],
    ['prosody.normalize_loudness a number', { prosody: { normalize_loudness: 1 } }, ['body', 'prosody', 'normalize_loudness']],
    ['reference_id a number', { reference_id: 7 }, ['body', 'reference_id']],
    ['references an object', { references: { audio: 'x', text: 'y' } }, ['body', 'references']],
    ['condition_on_previous_chunks a string', { condition_on_previous_chunks: 'true' }, ['body', 'condition_on_previous_chunks']],
  ]
  it.each(CASES)('%s', async (_, extra, loc) => expectInvalid({ ...OK, ...extra }, loc))

  it('a value outside a list of literals is told the values it may take', async () => {
    const res = await post({ ...OK, format: 'flac' })
    expect(res.statusCode).toBe(422)
    expect(res.json()).toEqual([{ loc: ['body', 'format'], type: 'enum', msg: '\'format\' must be one of: "wav", "pcm", "mp3", "opus"', in: 'body' }])
  })

  it('every latency and format value is accepted', async () => {
    for (const latency of ['low', 'balanced', 'normal']) await expectAudio({ ...OK, latency })
    for (const format of ['wav', 'mp3', 'opus']) {
      const res = await post({ text: 'Hi.', format })
      expect(res.statusCode).toBe(200)
      expect(res.rawPayload.length).toBeGreaterThan(100)
    }
  })
})

describe('optional fields, unknown keys, headers', () => {
  it('nil is allowed for every optional field', async () => {
    const nils = Object.fromEntries([
      'temperature', 'top_p', 'references', 'reference_id', 'prosody', 'chunk_length', 'normalize', 'format', 'sample_rate',
      'mp3_bitrate', 'opus_bitrate', 'latency', 'max_new_tokens', 'repetition_penalty', 'min_chunk_length',
      'condition_on_previous_chunks', 'early_stop_threshold',
    ].map((k) => [k, null]))
    // Nil format means the default, mp3.
    const res = await post({ text: 'Hi there.', ...nils })
    expect(res.statusCode, res.body).toBe(200)
    expect(res.headers['content-type']).toBe('audio/mpeg')
    await expectAudio({ ...OK, prosody: { speed: null, volume: null, normalize_loudness: null } })
  })

  it('unknown keys are ignored', async () => {
    const plain = await expectAudio(OK)
    expect(await expectAudio({ ...OK, model_id: 's1', foo: { bar: [1, 2] }, prosody: { speed: 1, pitch: 3 } })).toEqual(plain)
  })

  it('reference_id "" is treated as absent', async () => {
    expect(await expectAudio({ ...OK, reference_id: '' })).toEqual(await expectAudio(OK))
  })

  it('an unknown reference_id is a 404 {status, message}, before any audio byte', async () => {
    for (const reference_id of ['no-such-voice', ['festival-slt', 'no-such-voice']]) {
      const res = await post({ ...OK, reference_id })
      expect(res.statusCode).toBe(404)
      expect(res.headers['content-type']).toMatch(/^application\/json/)
      expect(res.json()).toEqual({ status: 404, message: expect.stringContaining("'no-such-voice' not found") })
    }
  })

  it('a missing or unknown model header works (as s2-pro)', async () => {
    const missing = await expectAudio(OK)
    for (const model of ['s2-pro', 'speech-1.5', 'speech-1.6', 'whatever']) expect(await expectAudio(OK, { model })).toEqual(missing)
    // s1 is understood too; without tags the words are the same.
    expect(await expectAudio(OK, { model: 's1' })).toEqual(missing)
  })
})

describe('text', () => {
  it(`over config.maxTextLength (${MAX_TEXT}) is a 422; at the limit it is spoken`, async () => {
    await expectInvalid({ ...OK, text: 'a'.repeat(MAX_TEXT + 1) }, ['body', 'text'])
    await expectAudio({ ...OK, text: `${'Hello there. '.repeat(40)}`.slice(0, MAX_TEXT) })
  })

  it('empty or blank text is a 422 naming text, in the list shape of every 422', async () => {
    for (const text of ['', ' \n\t ']) {
      const res = await post({ ...OK, text })
      expect({ status: res.statusCode, body: res.json() }).toEqual({ status: 422, body: [{ loc: ['body', 'text'], type: 'string_too_short', msg: 'text is empty; send the text to speak', in: 'body' }] })
    }
  })
})

describe('body encodings', () => {
  it('a MessagePack body and a JSON body give the same audio', async () => {
    const body = { ...OK, text: 'Same words, either way.', prosody: { speed: 1.2, volume: -3 }, latency: 'low', reference_id: 'flite-rms' }
    expect(await expectAudio(Buffer.from(encode(body)))).toEqual(await expectAudio(body))
  })

  describe('references', () => {
    const wav = Buffer.from(voiceWav({ seconds: 2 }))
    const ENCODINGS: readonly [string, (b: Buffer) => Body | Buffer][] = [
      ['MessagePack bin', (b) => Buffer.from(encode({ ...OK, references: [{ audio: b, text: 'a reference voice' }] }))],
      ['a base64 string in JSON', (b) => ({ ...OK, references: [{ audio: b.toString('base64'), text: 'a reference voice' }] })],
      ['Buffer.toJSON() in JSON', (b) => ({ ...OK, references: [{ audio: b.toJSON(), text: 'a reference voice' }] })],
    ]
    it.each(ENCODINGS)('reference audio as %s is accepted', async (_, make) => {
      await expectAudio(make(wav))
    })

    const good = { audio: wav.toString('base64'), text: 'a reference voice' }
    const BAD: readonly [string, unknown, string[]][] = [
      ['audio a number', { audio: 12, text: 't' }, ['body', 'references', '1', 'audio']],
      ['audio not base64', { audio: 'this is not base64!', text: 't' }, ['body', 'references', '1', 'audio']],
      ['Buffer-JSON with a non-byte', { audio: { type: 'Buffer', data: [82, 73, 300] }, text: 't' }, ['body', 'references', '1', 'audio']],
      ['empty audio', { audio: '', text: 't' }, ['body', 'references', '1', 'audio']],
      ['text missing', { audio: wav.toString('base64') }, ['body', 'references', '1', 'text']],
    ]
    it.each(BAD)('a bad second reference (%s) is a 422 naming reference 1', async (_, bad, loc) => {
      await expectInvalid({ ...OK, references: [good, bad] }, loc)
    })

    it('audio that is not audio is a 422 naming the reference', async () => {
      const res = await post({ ...OK, references: [{ audio: Buffer.from('plain text, not a recording').toString('base64'), text: 't' }] })
      expect(res.statusCode).toBe(422)
      expect((res.json() as { loc: string[] }[])[0]!.loc.slice(0, 3)).toEqual(['body', 'references', '0'])
    })
  })
})
