import { encode } from '@msgpack/msgpack'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { toWav } from './support/asr-speech.js'
import { startTestServer, type TestServer } from './helpers/app.js'
import { SENTENCES, ttsSpeech, withPauses } from './helpers/asr-audio.js'

/** `/v1/asr` request fields in each encoding: `ignore_timestamps` as booleans and strings, `language` forms. */
let s: TestServer
let wav: Uint8Array
/** The answer with segments, the reference for every variant. */
let timed: AsrBody

interface AsrBody {
  text: string
  duration: number
  segments: { text: string, start: number, end: number }[]
  language: string
}

async function multipart(fields: Record<string, string>, audio = wav) {
  const form = new FormData()
  form.append('audio', new Blob([audio]), 'one.wav')
  for (const [k, v] of Object.entries(fields)) form.append(k, v)
  const res = await fetch(`${s.url}/v1/asr`, { method: 'POST', body: form, headers: s.asAlice })
  return { status: res.status, body: (await res.json()) as AsrBody }
}

async function post(contentType: string, body: Uint8Array | string) {
  const headers = { ...s.asAlice, 'content-type': contentType }
  const res = await fetch(`${s.url}/v1/asr`, { method: 'POST', body, headers })
  return { status: res.status, body: (await res.json()) as AsrBody }
}

const msgpack = (fields: Record<string, unknown>) => post('application/msgpack', encode(fields))

const SLOW = 120_000

beforeAll(async () => {
  s = await startTestServer()
  await s.listen()
  const spoken = withPauses([await ttsSpeech(s, SENTENCES[20])], [SENTENCES[20]])
  wav = toWav(spoken.samples, spoken.sampleRate)
  const first = await multipart({ ignore_timestamps: 'false' })
  expect(first.status).toBe(200)
  timed = first.body
  expect(timed.segments.length).toBeGreaterThan(0)
  expect(timed.text.toLowerCase()).toContain('fifteen minutes')
}, SLOW)

afterAll(async () => s?.close())

describe('POST /v1/asr request fields', { timeout: SLOW }, () => {
  const untimed = () => ({ ...timed, segments: [] })

  it('multipart: ignore_timestamps as the strings "true" and "false"; omitted means true', async () => {
    expect(await multipart({ ignore_timestamps: 'true' })).toEqual({ status: 200, body: untimed() })
    expect(await multipart({ ignore_timestamps: 'false', language: 'en' })).toEqual({ status: 200, body: timed })
    expect(await multipart({})).toEqual({ status: 200, body: untimed() })
  })

  it('MessagePack: ignore_timestamps as booleans, as strings, and nil', async () => {
    expect(await msgpack({ audio: wav, ignore_timestamps: false })).toEqual({ status: 200, body: timed })
    expect(await msgpack({ audio: wav, ignore_timestamps: true })).toEqual({ status: 200, body: untimed() })
    expect(await msgpack({ audio: wav, ignore_timestamps: 'false' })).toEqual({ status: 200, body: timed })
    expect(await msgpack({ audio: wav, ignore_timestamps: null, language: null })).toEqual({ status: 200, body: untimed() })
  })

  it('JSON with base64 audio (the older docs) answers the same', async () => {
    const json = JSON.stringify({ audio: Buffer.from(wav).toString('base64'), ignore_timestamps: false })
    expect(await post('application/json', json)).toEqual({ status: 200, body: timed })
  })

  it('language: omitted, "auto", "en", "en-US" and "EN_gb" all transcribe as English and say so', async () => {
    expect(timed.language).toBe('en')
    for (const language of ['auto', 'en', 'en-US', 'EN_gb']) {
      const res = await multipart({ language, ignore_timestamps: 'false' })
      expect(res, language).toEqual({ status: 200, body: timed })
    }
  })

  it('takes exactly one second of audio (the minimum); silence gives an empty transcript', async () => {
    const second = toWav(new Float32Array(16_000), 16_000)
    expect(await multipart({ ignore_timestamps: 'false' }, second)).toEqual({
      status: 200,
      body: { text: '', duration: 1, segments: [], language: 'en' },
    })
  })
})
