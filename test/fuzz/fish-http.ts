/** Fuzzing the Fish HTTP surface: TTS bodies in every encoding, routes × methods × query strings × headers, raw HTTP. */
import { encode } from '@msgpack/msgpack'
import fc from 'fast-check'
import type { TestServer } from '../helpers/app.js'
import { rawRequest } from '../helpers/raw-http.js'
import { field, hostileBytes, hostileNumber, hostileString, hostileValue } from './arbitraries.js'
import { check, checkFishAnswer, checkTtsAudio } from './invariants.js'
import { percentEncode, type FuzzProperty } from './property.js'

const printable = fc.stringMatching(/^[\x20-\x7e]{0,40}$/)

const ttsBody = fc.record(
  {
    text: fc.oneof({ weight: 4, arbitrary: hostileValue }, { weight: 1, arbitrary: fc.constantFrom('Hi.', 'Hello there.', 'Hi (happy) there.', '∑∫√∞', '∑∫√∞. Hi.') }),
    format: field(fc.constantFrom('wav', 'pcm', 'mp3', 'opus')),
    sample_rate: field(fc.constantFrom(8000, 16000, 22050, 44100, 48000, null)),
    mp3_bitrate: field(fc.constantFrom(64, 128, 192)),
    opus_bitrate: field(fc.constantFrom(-1000, 24, 32000, 64000)),
    latency: field(fc.constantFrom('low', 'balanced', 'normal')),
    chunk_length: field(fc.integer({ min: 100, max: 300 })),
    normalize: field(fc.boolean()),
    prosody: field(fc.record({ speed: field(fc.double({ min: 0.5, max: 2, noNaN: true })), volume: field(fc.integer({ min: -20, max: 20 })) }, { requiredKeys: [] })),
    reference_id: field(fc.constantFrom(null, '', 'nobody', 'festival-slt')),
    references: field(fc.constant([])),
    temperature: field(fc.double({ min: 0, max: 1, noNaN: true })),
    top_p: field(fc.double({ min: 0, max: 1, noNaN: true })),
  },
  { requiredKeys: [] },
)

/** A body in one of the encodings clients send (or get wrong), with its Content-Type. */
const encoded = (value: fc.Arbitrary<unknown>) =>
  fc.oneof(
    { weight: 3, arbitrary: value.map((v) => ({ type: 'application/json', payload: JSON.stringify(v) ?? 'null' })) },
    { weight: 3, arbitrary: value.map((v) => ({ type: 'application/msgpack', payload: Buffer.from(encode(v)) })) },
    { weight: 1, arbitrary: fc.dictionary(printable, printable, { maxKeys: 4 }).map((o) => ({ type: 'application/x-www-form-urlencoded', payload: new URLSearchParams(o).toString() })) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom('application/json', 'application/msgpack', 'text/plain', 'multipart/form-data; boundary=x', 'application/x-msgpack', 'audio/wav', ''), hostileBytes).map(([type, b]) => ({ type, payload: Buffer.from(b) })) },
  )

const auth = (s: TestServer) =>
  fc.oneof(
    { weight: 6, arbitrary: fc.constant(s.asAlice) },
    { weight: 1, arbitrary: fc.constantFrom({}, { authorization: 'Bearer nope' }, { authorization: `Basic ${s.alice}` }, { authorization: 'Bearer' }, { authorization: `Bearer ${s.alice} extra` }) },
    { weight: 1, arbitrary: printable.map((v) => ({ authorization: v })) },
  )

const extraHeaders = fc.dictionary(fc.constantFrom('model', 'accept', 'x-anything', 'accept-encoding', 'content-language'), printable, { maxKeys: 2 })

const ttsBodies: FuzzProperty = {
  name: 'Fish TTS bodies (JSON, MessagePack, forms, garbage) on /v1/tts and SSE',
  runs: 120,
  property: (s) =>
    fc.asyncProperty(fc.constantFrom('/v1/tts', '/v1/tts/stream/with-timestamp'), encoded(ttsBody), auth(s), extraHeaders, async (url, body, who, extra) => {
      const headers = { ...extra, ...who, ...(body.type && { 'content-type': body.type }) }
      const res = await s.app.inject({ method: 'POST', url, headers, payload: body.payload })
      checkFishAnswer(res.statusCode, res.headers, res.body)
      if (res.statusCode === 200) checkTtsAudio(url, res.headers, res.rawPayload)
    }) as never,
}

const PATHS = ['/v1/tts', '/v1/tts/stream/with-timestamp', '/v1/tts/live', '/v1/asr', '/model', '/health', '/openapi.json', '/nowhere']
const pathArb = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...PATHS) },
  { weight: 2, arbitrary: hostileString.map((id) => `/model/${percentEncode(id) || 'x'}`) },
  { weight: 1, arbitrary: fc.constantFrom('/model/%zz', '/model/..%2F..%2Fetc', '//model', '/model/a/b', '/v1/tts/', `/model/${'a'.repeat(600)}`, '/%00') },
)
const queryArb = fc.array(fc.tuple(fc.constantFrom('page_size', 'page_number', 'title', 'tag', 'self', 'sort_by', 'author_id', 'language', 'title_language', 'visibility'), fc.oneof(hostileString, hostileNumber.map(String))), { maxLength: 4 })
  .map((pairs) => pairs.map(([k, v]) => `${k}=${percentEncode(v)}`).join('&'))

const routes: FuzzProperty = {
  name: 'Fish routes × methods × query strings × headers',
  runs: 120,
  property: (s) =>
    fc.asyncProperty(fc.constantFrom('GET', 'POST', 'PATCH', 'DELETE', 'PUT', 'HEAD', 'OPTIONS'), pathArb, queryArb, auth(s), extraHeaders, encoded(hostileValue), async (method, path, query, who, extra, body) => {
      const url = query ? `${path}?${query}` : path
      const withBody = method === 'POST' || method === 'PATCH' || method === 'PUT'
      // A fuzzed POST to /v1/tts with valid text would synthesize; the TTS property covers those bodies.
      const headers = { ...extra, ...who, ...(withBody && body.type && { 'content-type': body.type }) }
      const res = await s.app.inject({ method, url, headers, ...(withBody && { payload: body.payload }) })
      checkFishAnswer(res.statusCode, res.headers, res.body, method)
    }) as never,
}

const requestLine = fc.oneof(
  fc.constantFrom('GET / HTTP/1.1', 'GARBAGE', '', 'GET /model HTTP/9.9', 'POST /v1/tts HTTP/1.0', 'GET  HTTP/1.1', 'get /model http/1.1', '\u0000\u0001'),
  fc.tuple(fc.constantFrom('GET', 'POST', 'DELETE', 'X'), printable).map(([m, p]) => `${m} /${p} HTTP/1.1`),
)
const rawHeader = fc.oneof(
  fc.constantFrom('Expect: 100-continue', 'Expect: nope', 'Content-Length: -1', 'Content-Length: 1e3', 'Content-Length: 2', 'Transfer-Encoding: chunked', 'Transfer-Encoding: gzip', 'Host:', ': empty', 'Bad Header', 'Content-Type: application/json'),
  fc.tuple(printable, printable).map(([k, v]) => `${k}: ${v}`),
)

const rawHttp: FuzzProperty = {
  name: 'raw HTTP request heads (parser errors, framing, Expect)',
  runs: 40,
  listen: true,
  property: (s) =>
    fc.asyncProperty(requestLine, fc.array(rawHeader, { maxLength: 5 }), hostileBytes, async (line, headers, body) => {
      const head = [line, 'Host: x', `Authorization: Bearer ${s.alice}`, 'Connection: close', ...headers].join('\r\n')
      // The client sends everything and says so; a body shorter than announced is then cut short, not stalled.
      const a = await rawRequest(s.url, Buffer.concat([Buffer.from(`${head}\r\n\r\n`, 'latin1'), body]), 20_000, true)
      if (a.status === 0) return check(a.body === '', 'bytes that are not an HTTP response', a.body.slice(0, 200))
      // One response per connection here (Connection: close), so a chunked body is not followed by another answer.
      checkFishAnswer(a.status, a.headers, a.status >= 400 ? a.body : '', line.split(' ')[0] === 'HEAD' ? 'HEAD' : 'POST')
    }) as never,
}

export const fishHttpProperties: readonly FuzzProperty[] = [ttsBodies, routes, rawHttp]
