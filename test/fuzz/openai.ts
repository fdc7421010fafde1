/**
 * Fuzzing the OpenAI surface: `/v1/audio/speech` JSON bodies (hostile model, voice, input, instructions,
 * formats, speed, stream format), `/v1/audio/transcriptions` multipart uploads (corrupted audio, hostile
 * fields, every spelling of the granularity array), and methods × paths under its prefixes. Every non-2xx
 * must be OpenAI's `{error: {message, type, param, code}}`; a 200 must carry what was asked.
 */
import fc from 'fast-check'
import { multipart, voiceSamples, wavBytes } from '../helpers/voice-audio.js'
import { hostileBytes, hostileNumber, hostileString, hostileValue } from './arbitraries.js'
import { sampleFiles, upload, type Upload } from './fish-uploads.js'
import { check, checkFishAnswer, checkOpenAiAnswer, checkOpenAiError, storedState, Violation } from './invariants.js'
import { percentEncode, type FuzzProperty } from './property.js'

/** A plausible body with a few fields made hostile, so most cases get past the first check they meet. */
const mostlyValid = <T extends Record<string, unknown>>(valid: fc.Arbitrary<T>) =>
  fc.tuple(valid, fc.array(fc.tuple(fc.constantFrom(...Object.keys(SPEECH_FIELDS), 'extra'), hostileValue), { maxLength: 2 }), fc.array(fc.constantFrom(...Object.keys(SPEECH_FIELDS)), { maxLength: 2 }))
    .map(([body, hostile, dropped]) => {
      const out: Record<string, unknown> = { ...body, ...Object.fromEntries(hostile) }
      for (const k of dropped) delete out[k]
      return out
    })

const SPEECH_FIELDS = {
  model: fc.constantFrom('tts-1', 'tts-1-hd', 'gpt-4o-mini-tts', 'festival', 'flite', 'espeak-ng', 's1', 's2-pro', 'whisper-1', 'my-model'),
  input: fc.constantFrom('Hi.', 'Hello there.', '[whispering] Hi.', ')', '\ud800', '…', 'Hi (happy) there.'),
  voice: fc.oneof(fc.constantFrom('alloy', 'nova', 'verse', 'festival-slt', 'flite-rms', 'nobody', ''), fc.record({ id: fc.constantFrom('alloy', 'festival-slt', '') })),
  instructions: fc.constantFrom('calm', 'Speak cheerfully, almost whispering.', '', 'sad and slow'),
  response_format: fc.constantFrom('mp3', 'opus', 'aac', 'flac', 'wav', 'pcm', 'ogg', 'MP3'),
  speed: fc.oneof(fc.double({ min: 0.25, max: 4, noNaN: true }), fc.constantFrom(0, 0.24, 4.01, -1)),
  stream_format: fc.constantFrom('audio', 'sse', 'sse', 'SSE'),
}
const speechBody = mostlyValid(fc.record(SPEECH_FIELDS, { requiredKeys: ['input', 'voice'] }))

const speechPayload = fc.oneof(
  { weight: 6, arbitrary: speechBody.map((b) => ({ type: 'application/json', payload: JSON.stringify(b) })) },
  { weight: 1, arbitrary: hostileValue.map((v) => ({ type: 'application/json', payload: JSON.stringify(v) ?? 'null' })) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom('application/json', 'text/plain', 'multipart/form-data; boundary=x', 'application/msgpack', ''), hostileBytes).map(([type, b]) => ({ type, payload: Buffer.from(b) })) },
)

/** The SSE variant: `speech.audio.delta` events with audio, ending in `speech.audio.done` or an `error` event. */
function checkSpeechEvents(body: string): void {
  const events = body.split('\n\n').filter((e) => e.trim() !== '')
  check(events.length > 0, 'an SSE answer without events')
  events.forEach((raw, i) => {
    check(raw.startsWith('data: '), 'an SSE event without data', raw.slice(0, 100))
    let e: Record<string, unknown>
    try {
      e = JSON.parse(raw.slice(6)) as Record<string, unknown>
    } catch {
      throw new Violation(`an SSE event that is not JSON: ${raw.slice(0, 100)}`)
    }
    const last = i === events.length - 1
    if (e.type === 'speech.audio.delta') check(!last && typeof e.audio === 'string' && e.audio !== '', 'a delta without audio, or last', e)
    else if (e.type === 'speech.audio.done') check(last && typeof e.usage === 'object', 'done not last or without usage', e)
    else if (e.type === 'error') {
      check(last, 'an error event that is not last', e)
      checkOpenAiError(e, 'SSE error event')
    } else throw new Violation(`an SSE event of type ${String(e.type)}`)
  })
}

const speech: FuzzProperty = {
  name: 'OpenAI /v1/audio/speech: hostile JSON bodies, both stream formats',
  runs: 60,
  property: (s) =>
    fc.asyncProperty(speechPayload, fc.oneof({ weight: 8, arbitrary: fc.constant(s.asAlice) }, { weight: 1, arbitrary: fc.constantFrom({}, { authorization: 'Bearer nope' }) }), async (body, who) => {
      const headers = { ...who, ...(body.type && { 'content-type': body.type }) }
      const res = await s.app.inject({ method: 'POST', url: '/v1/audio/speech', headers, payload: body.payload })
      const type = res.headers['content-type'] as string | undefined
      checkOpenAiAnswer(res.statusCode, res.headers, res.body)
      if (res.statusCode !== 200) return
      if (type?.startsWith('text/event-stream')) checkSpeechEvents(res.body)
      // More than a header: a WAV header alone (44 bytes) is a 200 without audio too.
      else check(res.rawPayload.length > 44 && /^audio\//.test(type ?? ''), 'a 200 without audio', `${type} ${res.rawPayload.length}`)
    }) as never,
}

/** A 1.5 s file that decodes and is long enough to transcribe, so hostile fields reach the formatters. */
const transcribable = (): Upload => ({ file: wavBytes(voiceSamples({ seconds: 1.5 }), 16000), filename: 'a.wav', type: 'audio/wav' })

/** Mostly the plausible value: one hostile field in a case is enough to reach each check. */
const rarely = <T>(valid: fc.Arbitrary<T>) => fc.oneof({ weight: 8, arbitrary: valid }, { weight: 1, arbitrary: hostileValue })

const granularityName = fc.constantFrom('timestamp_granularities[]', 'timestamp_granularities', 'timestamp_granularities[0]', 'timestamp_granularities.1', 'timestamp_granularities[x]')
const transcriptionFields = fc.record(
  {
    model: rarely(fc.constantFrom('whisper-1', 'gpt-4o-transcribe', '')),
    language: rarely(fc.constantFrom('en', 'zh', 'auto', '', 'xx', 'en-US')),
    prompt: hostileString,
    temperature: rarely(fc.constantFrom('0', '0.5', '1', '2', '-1', 'abc', '', 'NaN')),
    response_format: rarely(fc.constantFrom('json', 'text', 'srt', 'vtt', 'verbose_json', 'JSON', 'xml')),
    stream: rarely(fc.constantFrom('true', 'false', 'yes', '')),
  },
  { requiredKeys: [] },
)

/** Form values as clients send them: strings (a JSON value as its text), without the boundary's prefix. */
const asFormValue = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v) ?? '').replace(/\r?\n--/g, '')

export function openAiProperties(): readonly FuzzProperty[] {
  const files = sampleFiles()
  const file = fc.oneof({ weight: 3, arbitrary: upload(files) }, { weight: 1, arbitrary: fc.constant(null).map(transcribable) })
  const transcriptions: FuzzProperty = {
    name: 'OpenAI /v1/audio/transcriptions: corrupted audio and hostile multipart fields',
    runs: 40,
    property: (s) =>
      fc.asyncProperty(
        transcriptionFields,
        fc.array(fc.tuple(granularityName, rarely(fc.constantFrom('word', 'segment', 'word,segment'))), { maxLength: 3 }),
        fc.array(fc.tuple(fc.oneof({ weight: 6, arbitrary: fc.constant('file') }, { weight: 1, arbitrary: fc.constantFrom('audio', 'File') }), file), { minLength: 1, maxLength: 2 }),
        fc.oneof({ weight: 6, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.tuple(fc.constantFrom('multipart/form-data; boundary=----parla-test-boundary', 'multipart/form-data', 'application/json', 'audio/wav'), hostileBytes) }),
        async (fields, granularities, uploads, garbage) => {
          const before = await storedState(s)
          const parts: Parameters<typeof multipart>[0][number][] = [
            ...Object.entries(fields).map(([name, v]) => ({ name, value: asFormValue(v) })),
            ...granularities.map(([name, v]) => ({ name, value: asFormValue(v) })),
            ...uploads.map(([name, f]) => ({ name, filename: f.filename, data: f.file, ...(f.type && { type: f.type }) })),
          ]
          const body = garbage ? { contentType: garbage[0], body: Buffer.from(garbage[1]) } : multipart(parts)
          const res = await s.app.inject({ method: 'POST', url: '/v1/audio/transcriptions', headers: { ...s.asAlice, 'content-type': body.contentType }, payload: body.body })
          checkOpenAiAnswer(res.statusCode, res.headers, res.body)
          const after = await storedState(s)
          check(after.models === before.models && after.blobs === before.blobs, 'a transcription left data behind', { before, after })
          if (res.statusCode === 200) check(res.rawPayload.length > 0, 'a 200 with an empty body')
        },
      ) as never,
  }
  return [speech, transcriptions, routes]
}

const routes: FuzzProperty = {
  name: 'OpenAI prefixes: methods × paths × query strings',
  runs: 40,
  property: (s) =>
    fc.asyncProperty(
      fc.constantFrom('GET', 'POST', 'PATCH', 'DELETE', 'PUT', 'OPTIONS'),
      fc.oneof(
        fc.constantFrom('/v1/audio/speech', '/v1/audio/transcriptions', '/v1/audio/translations', '/v1/audio/voices', '/v1/audio/models', '/v1/models', '/v1/audio', '/v1/audio/', '/v1/models/tts-1/x'),
        hostileString.map((id) => `/v1/models/${percentEncode(id) || 'x'}`),
        hostileString.map((p) => `/v1/audio/${percentEncode(p) || 'x'}`),
      ),
      fc.array(fc.tuple(fc.constantFrom('model', 'voice', 'limit', 'x'), fc.oneof(hostileString, hostileNumber.map(String))), { maxLength: 3 }),
      fc.oneof({ weight: 4, arbitrary: fc.constant(s.asAlice) }, { weight: 1, arbitrary: fc.constantFrom({}, { authorization: 'Basic x' }) }),
      async (method, path, query, who) => {
        const qs = query.map(([k, v]) => `${k}=${percentEncode(v)}`).join('&')
        // POST bodies are the other properties' business: an empty JSON object reaches validation only.
        const withBody = method === 'POST' || method === 'PATCH' || method === 'PUT'
        const res = await s.app.inject({ method, url: qs ? `${path}?${qs}` : path, headers: { ...who, ...(withBody && { 'content-type': 'application/json' }) }, ...(withBody && { payload: '{}' }) })
        // Dot segments resolve before routing (`/v1/audio/..` is `/v1/`): a path that leaves the prefixes is Fish's.
        const resolved = new URL(path, 'http://x').pathname
        const check = /^\/v1\/(audio|models)(\/|$)/.test(resolved) ? checkOpenAiAnswer : checkFishAnswer
        check(res.statusCode, res.headers, res.body, method)
      },
    ) as never,
}
