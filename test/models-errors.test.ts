import { encode } from '@msgpack/msgpack'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestServer, type TestServer } from './helpers/app.js'
import { createModel } from './helpers/models.js'
import { multipart, PNG_1PX, voiceWav } from './helpers/voice-audio.js'

const UPLOAD = 200_000
const wav = voiceWav({ seconds: 1.5 })
const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64')
const WAV64 = b64(wav)

const err = (status: number, message: string) => ({ status, message })
const issue = (loc: string[], type: string, msg: string) => ({ loc, type, msg, in: 'body' })
const MISSING_TITLE = issue(['body', 'title'], 'missing', "Field required: add 'title'")
const MISSING_VOICES = issue(['body', 'voices'], 'missing', "Field required: add at least one audio file as 'voices'")
const BAD_JSON = err(400, 'Body is not valid JSON though Content-Type is application/json; send one JSON object')
const MALFORMED = (detail: string) => err(400, `Multipart body is malformed: ${detail}; send multipart/form-data with the boundary from the Content-Type header`)
const ACCEPTED = 'send WAV, MP3, Ogg Opus/Vorbis, FLAC or M4A'

interface Req {
  type?: string
  body?: string | Buffer
  method?: 'POST' | 'PATCH'
}
const json = (value: unknown): Req => ({ type: 'application/json', body: JSON.stringify(value) })
const raw = (type: string, body: string | Buffer): Req => ({ type, body })
const msgpack = (value: unknown): Req => ({ type: 'application/msgpack', body: Buffer.from(encode(value)) })
const form = (parts: Parameters<typeof multipart>[0], boundary?: string): Req => {
  const m = multipart(parts, boundary)
  return { type: m.contentType, body: m.body }
}
const voice = (data: Uint8Array = wav, filename = 'v.wav') => ({ name: 'voices', filename, data, type: 'audio/wav' })
const field = (name: string, value: string) => ({ name, value })

/** [name, request, status, exact body] — each is a malformed or hostile POST /model body. */
const HOSTILE: [string, Req, number, unknown][] = [
  ['unparseable JSON', raw('application/json', '{"title": '), 400, BAD_JSON],
  ['JSON with a __proto__ key', raw('application/json', '{"__proto__": {"admin": true}, "title": "t"}'), 400, BAD_JSON],
  ['JSON with constructor.prototype', raw('application/json', '{"constructor": {"prototype": {"admin": true}}}'), 400, BAD_JSON],
  ['empty JSON body', raw('application/json', ''), 400, err(400, 'Body is empty but Content-Type is application/json; send a JSON object')],
  ['JSON array body', json([1, 2]), 422, [issue(['body'], 'object_type', "The body must be an object with the model's fields, not an array")]],
  ['JSON string body', json('hello'), 422, [issue(['body'], 'object_type', "The body must be an object with the model's fields, not a string")]],
  ['JSON null body', json(null), 422, [MISSING_TITLE, MISSING_VOICES]],
  ['nil values everywhere', json({ title: null, voices: null, tags: null, texts: null, type: null, visibility: null }), 422, [MISSING_TITLE, MISSING_VOICES]],
  ['title as a number', json({ title: 42, voices: [WAV64] }), 422, [issue(['body', 'title'], 'string_type', "'title' must be of type string")]],
  ['title as an array', json({ title: ['a', 'b'], voices: [WAV64] }), 422, [issue(['body', 'title'], 'string_type', "'title' must be of type string")]],
  ['title as an object', json({ title: { $gt: '' }, voices: [WAV64] }), 422, [issue(['body', 'title'], 'string_type', "'title' must be of type string")]],
  ['1 MB title', json({ title: 'x'.repeat(1 << 20), voices: [WAV64] }), 422, [issue(['body', 'title'], 'string_too_long', "'title' must NOT have more than 200 characters (got 1048576)")]],
  ['201-character title', json({ title: 'é'.repeat(201), voices: [WAV64] }), 422, [issue(['body', 'title'], 'string_too_long', "'title' must NOT have more than 200 characters (got 201)")]],
  ['blank title', json({ title: '  \t ', voices: [WAV64] }), 422, [issue(['body', 'title'], 'string_too_short', "'title' must not be empty")]],
  ['numbers for tags', json({ title: 't', tags: [1, 2], voices: [WAV64] }), 422, [issue(['body', 'tags', '0'], 'string_type', "'tags' items must be of type string")]],
  ['tags as an object', json({ title: 't', tags: { a: 1 }, voices: [WAV64] }), 422, [issue(['body', 'tags'], 'list_type', "'tags' must be a list of strings or one string")]],
  ['33 tags', json({ title: 't', tags: Array.from({ length: 33 }, (_, i) => `t${i}`), voices: [WAV64] }), 422, [issue(['body', 'tags'], 'too_long', "'tags' has 33 tags; at most 32 are allowed")]],
  ['unknown type, visibility and train_mode', json({ title: 't', type: 'clone', visibility: 'everyone', train_mode: 'slow', voices: [WAV64] }), 422, [
    issue(['body', 'type'], 'enum', '\'type\' must be one of: "svc", "tts"'),
    issue(['body', 'train_mode'], 'enum', '\'train_mode\' must be one of: "fast", "full"'),
    issue(['body', 'visibility'], 'enum', '\'visibility\' must be one of: "public", "unlist", "private"'),
  ]],
  ['enhance_audio_quality not a boolean', json({ title: 't', enhance_audio_quality: 'maybe', voices: [WAV64] }), 422, [issue(['body', 'enhance_audio_quality'], 'bool_parsing', "'enhance_audio_quality' must be a boolean: true or false")]],
  ['voices missing', json({ title: 't' }), 422, [MISSING_VOICES]],
  ['voices an empty list', json({ title: 't', voices: [] }), 422, [MISSING_VOICES]],
  ['voices not base64', json({ title: 't', voices: ['%%% not base64 %%%'] }), 422, [issue(['body', 'voices', '0'], 'value_error', 'voices[0] is not valid base64; send the file bytes base64-encoded, as MessagePack bin, or as a multipart file')]],
  ['voices as a number', json({ title: 't', voices: 123 }), 422, [issue(['body', 'voices', '0'], 'bytes_type', 'voices[0] must be a file: base64 string, MessagePack bin, or a multipart file')]],
  ['voices as objects', json({ title: 't', voices: [{ path: '/etc/passwd' }] }), 422, [issue(['body', 'voices', '0'], 'bytes_type', 'voices[0] must be a file: base64 string, MessagePack bin, or a multipart file')]],
  ['a text file as voice', json({ title: 't', voices: [b64(Buffer.from('just some words, not audio at all'))] }), 422, [issue(['body', 'voices', '0'], 'value_error', `file 'voices[0]' is not audio: it looks like plain text; ${ACCEPTED}`)]],
  ['a PNG as voice', json({ title: 't', voices: [b64(PNG_1PX)] }), 422, [issue(['body', 'voices', '0'], 'value_error', `file 'voices[0]' is not audio: it looks like a PNG image; ${ACCEPTED}`)]],
  ['an empty voice', json({ title: 't', voices: [''] }), 422, [issue(['body', 'voices', '0'], 'value_error', "Voice sample 'voices[0]' is empty; upload an audio file")]],
  ['a truncated WAV header', json({ title: 't', voices: [b64(wav.subarray(0, 30))] }), 422, [issue(['body', 'voices', '0'], 'value_error', "file 'voices[0]' is a damaged or unsupported WAV: its fmt chunk is truncated")]],
  ['a voice shorter than the minimum', json({ title: 't', voices: [b64(voiceWav({ seconds: 0.4 }))] }), 422, [issue(['body', 'voices', '0'], 'value_error', "Voice sample 'voices[0]' is 0.40 s long; voice samples must be between 1 and 5 seconds")]],
  ['a voice longer than the maximum', json({ title: 't', voices: [b64(voiceWav({ seconds: 6, sampleRate: 8000 }))] }), 422, [issue(['body', 'voices', '0'], 'value_error', "file 'voices[0]' is 6.0 s long; the limit is 5 s")]],
  ['more texts than voices', json({ title: 't', texts: ['a', 'b', 'c'], voices: [WAV64] }), 422, [issue(['body', 'texts'], 'too_long', 'Got 3 texts for 1 voice file(s); send one transcript per voice, in order')]],
  ['a cover that is not an image', json({ title: 't', voices: [WAV64], cover_image: b64(Buffer.from('GIF? no, plain text')) }), 422, [issue(['body', 'cover_image'], 'value_error', 'cover_image must be a PNG, JPEG, GIF or WebP image')]],
  ['field problems, reported before any file is decoded', json({ title: '', type: 7, voices: [b64(PNG_1PX)] }), 422, [
    issue(['body', 'type'], 'string_type', "'type' must be of type string"),
    issue(['body', 'title'], 'string_too_short', "'title' must not be empty"),
  ]],
  ['several bad files, all reported', json({ title: 't', voices: [b64(PNG_1PX), '', WAV64, b64(voiceWav({ seconds: 0.5 }))] }), 413, err(413, 'Too many files: send at most 3 voice samples and one cover_image per request')],
  ['three bad files, all reported', json({ title: 't', voices: [b64(PNG_1PX), '', b64(voiceWav({ seconds: 0.5 }))] }), 422, [
    issue(['body', 'voices', '0'], 'value_error', `file 'voices[0]' is not audio: it looks like a PNG image; ${ACCEPTED}`),
    issue(['body', 'voices', '1'], 'value_error', "Voice sample 'voices[1]' is empty; upload an audio file"),
    issue(['body', 'voices', '2'], 'value_error', "Voice sample 'voices[2]' is 0.50 s long; voice samples must be between 1 and 5 seconds"),
  ]],
  ['a voice over the upload limit', json({ title: 't', voices: [b64(new Uint8Array(UPLOAD + 1))] }), 413, err(413, "A file in 'voices' is larger than the 200000-byte upload limit; send a smaller file")],
  ['too many voices (JSON)', json({ title: 't', voices: [WAV64, WAV64, WAV64, WAV64] }), 413, err(413, 'Too many files: send at most 3 voice samples and one cover_image per request')],
  ['a body over the body limit', json({ title: 't', voices: [b64(new Uint8Array(1_000_000))] }), 413, err(413, 'Request body is too large; send a smaller body')],
  ['unparseable MessagePack', raw('application/msgpack', Buffer.from([0xc1, 0xff])), 400, err(400, 'Body is not valid MessagePack: Unrecognized type byte: 0xc1')],
  ['MessagePack with a __proto__ key', raw('application/msgpack', Buffer.from([0x81, 0xa9, ...Buffer.from('__proto__'), 0x01])), 400, err(400, 'Body is not valid MessagePack: The key __proto__ is not allowed')],
  ['empty MessagePack body', raw('application/msgpack', Buffer.alloc(0)), 400, err(400, 'Body is empty but Content-Type is MessagePack; send a MessagePack map')],
  ['MessagePack array body', msgpack([1, 2, 3]), 422, [issue(['body'], 'object_type', "The body must be an object with the model's fields, not an array")]],
  ['MessagePack bin title', msgpack({ title: new Uint8Array([1, 2]), voices: [wav] }), 422, [issue(['body', 'title'], 'string_type', "'title' must be of type string")]],
  ['multipart without a boundary', raw('multipart/form-data', 'whatever'), 400, MALFORMED('Multipart: Boundary not found')],
  ['multipart with the wrong boundary', { ...form([field('title', 't'), voice()]), type: 'multipart/form-data; boundary=not-the-one' }, 400, MALFORMED('Unexpected end of multipart data')],
  ['truncated multipart', { ...form([field('title', 't'), voice()]), body: (form([field('title', 't'), voice()]).body as Buffer).subarray(0, 2000) }, 400, MALFORMED('Unexpected end of multipart data')],
  ['multipart garbage part headers', raw('multipart/form-data; boundary=b', '--b\r\nthis is not a header\r\n\r\nxyz\r\n--b--\r\n'), 422, [MISSING_TITLE, MISSING_VOICES]],
  ['multipart __proto__ field', form([field('__proto__', 'x'), voice()]), 400, err(400, 'A multipart field is named like an Object.prototype property (e.g. __proto__ or constructor); rename it')],
  ['multipart constructor file', form([field('title', 't'), { name: 'constructor', filename: 'x.wav', data: wav }]), 400, err(400, 'A multipart field is named like an Object.prototype property (e.g. __proto__ or constructor); rename it')],
  ['multipart empty voice file', form([field('title', 't'), voice(new Uint8Array(0), 'empty.wav')]), 422, [issue(['body', 'voices', '0'], 'value_error', "Voice sample 'empty.wav' is empty; upload an audio file")]],
  ['multipart text file as voice', form([field('title', 't'), voice(Buffer.from('hello\nworld\n'), 'notes.txt')]), 422, [issue(['body', 'voices', '0'], 'value_error', `file 'notes.txt' is not audio: it looks like plain text; ${ACCEPTED}`)]],
  ['multipart title sent twice', form([field('title', 'a'), field('title', 'b'), voice()]), 422, [issue(['body', 'title'], 'value_error', "'title' was sent 2 times; send it once")]],
  ['multipart 1.5 MB title', form([field('title', 'y'.repeat(1_500_000)), voice()]), 422, [issue(['body', 'title'], 'string_too_long', "'title' must NOT have more than 200 characters (got 1048576)")]],
  ['multipart file over the upload limit', form([field('title', 't'), voice(new Uint8Array(UPLOAD + 10), 'huge.wav')]), 413, err(413, "'huge.wav' is larger than the 200000-byte upload limit; send a smaller file")],
  ['multipart with too many files', form([field('title', 't'), voice(), voice(), voice(), voice(), voice()]), 413, err(413, 'Too many files: send at most 3 voice samples and one cover_image per request')],
  ['multipart with 250 fields', form([...Array.from({ length: 250 }, (_, i) => field(`f${i}`, 'x')), voice()]), 413, err(413, 'Too many multipart fields; send each field once (repeat only voices, texts and tags)')],
  ['text/plain body', raw('text/plain', 'title=t'), 415, err(415, "Unsupported Content-Type 'text/plain'; send multipart/form-data, application/json, application/msgpack or application/x-www-form-urlencoded")],
  ['XML body', raw('application/xml', '<model/>'), 415, err(415, 'Unsupported Content-Type; send application/json, application/msgpack, multipart/form-data or application/x-www-form-urlencoded')],
  ['url-encoded __proto__ and junk', raw('application/x-www-form-urlencoded', '__proto__[admin]=1&constructor=x&title=t'), 422, [MISSING_VOICES]],
]

describe('/model errors: exact shapes for malformed and hostile requests', () => {
  let s: TestServer
  beforeAll(async () => {
    s = await startTestServer({ maxUploadBytes: UPLOAD, maxUploadFiles: 3, maxBodyBytes: 1_200_000, maxSampleSeconds: 5 })
  })
  afterAll(async () => s.close())

  it('has at least 30 hostile bodies', () => expect(HOSTILE.length).toBeGreaterThanOrEqual(30))

  it.each(HOSTILE)('POST /model with %s', async (_name, req, status, body) => {
    const res = await s.app.inject({
      method: req.method ?? 'POST',
      url: '/model',
      headers: { ...s.asAlice, ...(req.type ? { 'content-type': req.type } : {}) },
      ...(req.body !== undefined ? { payload: req.body } : {}),
    })
    expect(res.statusCode).toBe(status)
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8')
    expect(res.json()).toEqual(body)
    expect(await s.deps.blobs.list('models/')).toEqual([])
  })

  it('a JSON field in multipart that is not JSON is a 400', async () => {
    const body = Buffer.from('--b\r\nContent-Disposition: form-data; name="tags"\r\nContent-Type: application/json\r\n\r\n{oops\r\n--b--\r\n')
    const res = await s.app.inject({ method: 'POST', url: '/model', headers: { ...s.asAlice, 'content-type': 'multipart/form-data; boundary=b' }, payload: body })
    expect(res.statusCode).toBe(400)
    expect(res.json()).toEqual(err(400, 'A multipart field declared as application/json is not valid JSON'))
  })

  describe('ids and paths', () => {
    let id: string
    beforeAll(async () => {
      id = (await createModel(s, s.asAlice))._id
    })
    it.each([
      ['GET', '/model/..%2F..%2Fetc%2Fpasswd', 404, err(404, "Voice model '../../etc/passwd' not found")],
      ['DELETE', '/model/..%2F..', 404, err(404, "Voice model '../..' not found")],
      ['GET', '/model/models%2Fx%2Fvoice-0.wav/samples/0', 404, err(404, "Voice model 'models/x/voice-0.wav' not found")],
      ['GET', `/model/${'a'.repeat(200)}`, 404, err(404, `Voice model '${'a'.repeat(40)}…' not found`)],
      ['GET', `/model/${'b'.repeat(600)}`, 404, err(404, 'Not found: a path segment is longer than 500 characters, so no resource has that id')],
      ['GET', "/model/'%20OR%201=1--", 404, err(404, "Voice model '' OR 1=1--' not found")],
      ['GET', '/model/%zz', 400, err(400, 'The URL is not valid: check its percent-encoding (e.g. %zz is not allowed)')],
      ['GET', '/model/x/samples/abc', 422, [{ loc: ['path', 'n'], type: 'integer_type', msg: "'n' must be of type integer", in: 'path' }]],
      ['PUT', '/model', 405, err(405, 'Method PUT is not allowed on /model; use GET or HEAD or POST')],
      ['POST', '/model/abc', 405, err(405, 'Method POST is not allowed on /model/abc; use GET or HEAD or PATCH or DELETE')],
    ] as const)('%s %s → %i', async (method, url, status, body) => {
      const res = await s.app.inject({ method, url, headers: s.asAlice })
      expect(res.statusCode).toBe(status)
      expect(res.json()).toEqual(body)
    })

    it('405 carries an Allow header', async () => {
      const res = await s.app.inject({ method: 'PUT', url: `/model/${id}`, headers: s.asAlice })
      expect(res.headers.allow).toBe('GET, HEAD, PATCH, DELETE')
    })

    it.each([
      ['no key', {}, "Missing Authorization header; send 'Authorization: Bearer <API key>'"],
      ['a wrong key', { authorization: 'Bearer parla_0123456789abcdef_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }, 'Invalid API key'],
    ])('401 with %s on every /model route', async (_n, headers, message) => {
      for (const [method, url] of [['GET', '/model'], ['POST', '/model'], ['GET', `/model/${id}`], ['PATCH', `/model/${id}`], ['DELETE', `/model/${id}`], ['GET', `/model/${id}/samples/0`], ['GET', `/model/${id}/cover`]] as const) {
        const res = await s.app.inject({ method, url, headers })
        expect(res.statusCode).toBe(401)
        expect(res.json()).toEqual(err(401, message))
      }
    })

    it.each([
      ['empty title', { title: '' }, 422, [issue(['body', 'title'], 'string_too_short', "'title' must not be empty")]],
      ['unknown visibility', { visibility: 'world' }, 422, [issue(['body', 'visibility'], 'enum', '\'visibility\' must be one of: "public", "unlist", "private"')]],
      ['tags as numbers', { tags: [1] }, 422, [issue(['body', 'tags', '0'], 'string_type', "'tags' items must be of type string")]],
      ['a cover that is not an image', { cover_image: b64(Buffer.from('nope, not an image')) }, 422, [issue(['body', 'cover_image'], 'value_error', 'cover_image must be a PNG, JPEG, GIF or WebP image')]],
      ['description too long', { description: 'd'.repeat(5001) }, 422, [issue(['body', 'description'], 'string_too_long', "'description' must NOT have more than 5000 characters (got 5001)")]],
      ['nil values (no change)', { title: null, description: null, tags: null }, 200, { status: 'ok' }],
    ] as const)('PATCH with %s', async (_n, payload, status, body) => {
      const res = await s.app.inject({ method: 'PATCH', url: `/model/${id}`, headers: { ...s.asAlice, 'content-type': 'application/json' }, payload })
      expect(res.statusCode).toBe(status)
      expect(res.json()).toEqual(body)
      expect((await s.app.inject({ method: 'GET', url: `/model/${id}`, headers: s.asAlice })).json().title).toBe('A voice')
    })

    it('PATCH with unparseable bodies', async () => {
      const bad = await s.app.inject({ method: 'PATCH', url: `/model/${id}`, headers: { ...s.asAlice, 'content-type': 'application/json' }, payload: '{' })
      expect(bad.statusCode).toBe(400)
      expect(bad.json()).toEqual(BAD_JSON)
      const mp = await s.app.inject({ method: 'PATCH', url: `/model/${id}`, headers: { ...s.asAlice, 'content-type': 'multipart/form-data' }, payload: 'x' })
      expect(mp.statusCode).toBe(400)
      expect(mp.json()).toEqual(MALFORMED('Multipart: Boundary not found'))
    })
  })
})
