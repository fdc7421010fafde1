import OpenAI, { toFile } from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { toWav } from './support/asr-speech.js'
import { corpusWer } from '../src/asr/wer.js'
import { startTestServer, type TestServer } from './helpers/app.js'
import { segmentProblems, ttsAll, withPauses, type Arranged } from './helpers/asr-audio.js'

/**
 * The `openai` npm SDK, unmodified, against `/v1/audio/transcriptions`: every response format, word and
 * segment times checked against where the sentences really are in the file, the SSE stream, and errors.
 */
const TEXTS = ['The train to the city leaves every morning at eight.', 'He likes to read the newspaper while he eats breakfast.']
const SLOW = 120_000

let s: TestServer
let client: OpenAI
let spoken: Arranged
let wav: Uint8Array

beforeAll(async () => {
  s = await startTestServer()
  const url = await s.listen()
  client = new OpenAI({ apiKey: s.alice, baseURL: `${url}/v1`, maxRetries: 0, timeout: SLOW })
  spoken = withPauses(await ttsAll(s, TEXTS), TEXTS)
  wav = toWav(spoken.samples, spoken.sampleRate)
}, SLOW)
afterAll(async () => s?.close())

const file = () => toFile(Buffer.from(wav), 'speech.wav', { type: 'audio/wav' })
const expectText = (text: string) => expect(corpusWer([{ reference: TEXTS.join(' '), hypothesis: text }]).wer, text).toBeLessThanOrEqual(0.15)

describe('POST /v1/audio/transcriptions through the openai SDK', { timeout: SLOW }, () => {
  it('json (default): {text}', async () => {
    const res = await client.audio.transcriptions.create({ file: await file(), model: 'whisper-1' })
    expectText(res.text)
  })

  it('text: the transcript as plain text', async () => {
    const res = await client.audio.transcriptions.create({ file: await file(), model: 'whisper-1', response_format: 'text' })
    expect(typeof res).toBe('string')
    expectText(res as unknown as string)
  })

  it('srt and vtt: numbered cues with times where the sentences are', async () => {
    const srt = (await client.audio.transcriptions.create({ file: await file(), model: 'whisper-1', response_format: 'srt' })) as unknown as string
    const cues = [...srt.matchAll(/^(\d+)\n(\d\d):(\d\d):(\d\d),(\d{3}) --> (\d\d):(\d\d):(\d\d),(\d{3})\n(.+)$/gm)]
    expect(cues.length).toBeGreaterThanOrEqual(2)
    expect(cues.map((c) => Number(c[1]))).toEqual(cues.map((_, i) => i + 1))
    const sec = (h: string, m: string, x: string, ms: string) => Number(h) * 3600 + Number(m) * 60 + Number(x) + Number(ms) / 1000
    const segments = cues.map((c) => ({ text: c[10]!, start: sec(c[2]!, c[3]!, c[4]!, c[5]!), end: sec(c[6]!, c[7]!, c[8]!, c[9]!) }))
    expect(segmentProblems(segments, spoken.truth, 0.35)).toEqual([])
    const vtt = (await client.audio.transcriptions.create({ file: await file(), model: 'whisper-1', response_format: 'vtt' })) as unknown as string
    expect(vtt.startsWith('WEBVTT\n\n')).toBe(true)
    expect(vtt).toMatch(/^\d\d:\d\d:\d\d\.\d{3} --> \d\d:\d\d:\d\d\.\d{3}$/m)
  })

  it('verbose_json with word and segment granularities: words lie on the spoken sentences, in order', async () => {
    const res = await client.audio.transcriptions.create({
      file: await file(), model: 'whisper-1', response_format: 'verbose_json', timestamp_granularities: ['word', 'segment'],
    })
    expect(res.language).toBe('english')
    expect(res.duration).toBeCloseTo(spoken.samples.length / spoken.sampleRate, 1)
    expectText(res.text)
    expect(res.segments!.length).toBeGreaterThanOrEqual(2)
    const words = res.words!
    expect(words.length).toBeGreaterThanOrEqual(15)
    for (let i = 0; i < words.length; i++) {
      const w = words[i]!
      expect(w.end).toBeGreaterThan(w.start)
      if (i > 0) expect(w.start).toBeGreaterThanOrEqual(words[i - 1]!.end - 0.01)
      expect(spoken.truth.some((t) => w.start >= t.start - 0.3 && w.end <= t.end + 0.3), JSON.stringify(w)).toBe(true)
    }
    // "newspaper" is in the second sentence.
    const newspaper = words.find((w) => w.word.toLowerCase() === 'newspaper')
    expect(newspaper!.start).toBeGreaterThan(spoken.truth[1]!.start)
  })

  it('verbose_json without granularities has segments and no words', async () => {
    const res = await client.audio.transcriptions.create({ file: await file(), model: 'whisper-1', response_format: 'verbose_json' })
    expect(res.segments!.length).toBeGreaterThanOrEqual(2)
    expect(res.words).toBeUndefined()
  })

  it('stream: true gives transcript.text.delta events, then transcript.text.done with the whole text', async () => {
    const stream = await client.audio.transcriptions.create({ file: await file(), model: 'gpt-4o-transcribe', stream: true })
    let deltas = ''
    let done = ''
    for await (const event of stream) {
      if (event.type === 'transcript.text.delta') deltas += event.delta
      if (event.type === 'transcript.text.done') done = event.text
    }
    expectText(done)
    expect(deltas).toBe(done)
  })
})

describe('the granularity field in every spelling clients use', { timeout: SLOW }, () => {
  for (const field of ['timestamp_granularities[]', 'timestamp_granularities', 'timestamp_granularities[0]']) {
    it(field, async () => {
      const form = new FormData()
      form.append('file', new Blob([wav]), 'speech.wav')
      form.append('model', 'whisper-1')
      form.append('response_format', 'verbose_json')
      form.append(field, 'word')
      const res = await fetch(`${s.url}/v1/audio/transcriptions`, { method: 'POST', headers: { authorization: `Bearer ${s.alice}` }, body: form })
      expect(res.status).toBe(200)
      const body = (await res.json()) as { words?: unknown[]; segments?: unknown[] }
      expect(body.words!.length).toBeGreaterThan(10)
      expect(body.segments).toBeUndefined()
    })
  }
})

describe('errors in OpenAI shape', () => {
  const post = async (fields: Record<string, string>, withFile = true) => {
    const form = new FormData()
    if (withFile) form.append('file', new Blob([wav]), 'speech.wav')
    for (const [k, v] of Object.entries(fields)) form.append(k, v)
    const res = await fetch(`${s.url}/v1/audio/transcriptions`, { method: 'POST', headers: { authorization: `Bearer ${s.alice}` }, body: form })
    return { status: res.status, body: (await res.json()) as { error: { message: string; type: string; param: string | null } } }
  }

  it('no file, a bad format, granularities without verbose_json, a bad temperature: 400 naming the field', async () => {
    expect(await post({ model: 'whisper-1' }, false)).toMatchObject({ status: 400, body: { error: { param: 'file', type: 'invalid_request_error' } } })
    expect(await post({ response_format: 'xml' })).toMatchObject({ status: 400, body: { error: { param: 'response_format' } } })
    expect(await post({ 'timestamp_granularities[]': 'word' })).toMatchObject({ status: 400, body: { error: { param: 'timestamp_granularities[]' } } })
    expect(await post({ 'timestamp_granularities[]': 'sentence', response_format: 'verbose_json' })).toMatchObject({ status: 400 })
    expect(await post({ temperature: '7' })).toMatchObject({ status: 400, body: { error: { param: 'temperature' } } })
  })

  it('a file that is not audio is a 400 saying so; JSON bodies are refused with what to send', async () => {
    const form = new FormData()
    form.append('file', new Blob(['hello, not audio']), 'notes.txt')
    const res = await fetch(`${s.url}/v1/audio/transcriptions`, { method: 'POST', headers: { authorization: `Bearer ${s.alice}` }, body: form })
    expect(res.status).toBe(400)
    expect(((await res.json()) as { error: { param: string } }).error.param).toBe('file')
    const json = await fetch(`${s.url}/v1/audio/transcriptions`, { method: 'POST', headers: { authorization: `Bearer ${s.alice}`, 'content-type': 'application/json' }, body: '{}' })
    expect(json.status).toBe(415)
    expect(((await json.json()) as { error: { message: string } }).error.message).toContain('multipart/form-data')
  })
})
