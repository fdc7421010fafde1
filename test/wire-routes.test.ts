import { encode } from '@msgpack/msgpack'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestServer, type TestServer } from './helpers/app.js'
import { multipart, wavBytes } from './helpers/voice-audio.js'

/**
 * Conformance of the Fish surface's 422 with the spec: a JSON array of `{loc, type, msg[, ctx, in]}`, whatever
 * layer found the problem. Every Fish route of the OpenAPI document gets bad content (each field of the wrong
 * type, each query and path parameter malformed), then the checks that run after parsing get theirs.
 */
let s: TestServer
beforeAll(async () => {
  s = await startTestServer()
})
afterAll(async () => s.close())

const ISSUE_KEYS = ['ctx', 'in', 'loc', 'msg', 'type']
const LOC_ROOTS = ['body', 'query', 'path', 'header']

interface Answer {
  statusCode: number
  headers: Record<string, unknown>
  body: string
}

/** A 422 must be the list; any other error exactly `{status, message}`. Returns the list for a 422. */
function checkShape(res: Answer, what: string): Record<string, unknown>[] | undefined {
  if (res.statusCode < 400) return undefined
  expect(res.headers['content-type'], what).toMatch(/^application\/json/)
  const body = JSON.parse(res.body) as unknown
  if (res.statusCode !== 422) {
    expect(Object.keys(body as object).sort(), `${what}: ${res.body}`).toEqual(['message', 'status'])
    return undefined
  }
  expect(Array.isArray(body), `${what}: a 422 that is not the list: ${res.body}`).toBe(true)
  const issues = body as Record<string, unknown>[]
  expect(issues.length, what).toBeGreaterThan(0)
  for (const issue of issues) {
    expect(Object.keys(issue).every((k) => ISSUE_KEYS.includes(k)), `${what}: ${res.body}`).toBe(true)
    const loc = issue.loc as unknown[]
    expect(Array.isArray(loc) && loc.every((p) => typeof p === 'string') && LOC_ROOTS.includes(loc[0] as string), `${what}: loc ${JSON.stringify(loc)}`).toBe(true)
    expect(typeof issue.type === 'string' && issue.type !== '' && typeof issue.msg === 'string' && issue.msg !== '', what).toBe(true)
    if (issue.in !== undefined) expect(issue.in, what).toBe(loc[0])
  }
  return issues
}

interface Operation {
  method: string
  path: string
  params: { name: string; in: string; schema?: { type?: string } }[]
  properties: Record<string, { type?: string | string[] }>
  hasBody: boolean
}

/** A value of the wrong type for a field of this schema type. */
const wrongValue = (type: string | string[] | undefined): unknown => {
  const t = Array.isArray(type) ? type[0] : type
  return t === 'string' ? 12345 : t === 'array' ? 7 : t === 'object' ? 'not an object' : t === 'boolean' ? 'maybe' : 'not a number'
}

describe('every Fish route: bad content is a 422 list naming the field', () => {
  let operations: Operation[] = []
  let modelId = ''
  beforeAll(async () => {
    const doc = (await s.app.inject({ method: 'GET', url: '/openapi.json' })).json() as { paths: Record<string, Record<string, { parameters?: Operation['params']; requestBody?: { content: Record<string, { schema?: { properties?: Operation['properties'] } }> } }>> }
    operations = Object.entries(doc.paths)
      .filter(([path]) => !path.startsWith('/v1/audio') && !path.startsWith('/v1/models'))
      .flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({
        method: method.toUpperCase(),
        path,
        params: op.parameters ?? [],
        properties: op.requestBody?.content['application/json']?.schema?.properties ?? {},
        hasBody: op.requestBody !== undefined,
      })))
    const created = await s.app.inject({ method: 'POST', url: '/model', ...multipartOf([{ name: 'title', value: 'Wire' }, { name: 'type', value: 'tts' }, { name: 'train_mode', value: 'fast' }, { name: 'voices', filename: 'v.wav', data: wavBytes(new Float32Array(16_000 * 12).map((_, i) => 0.3 * Math.sin(i / 9) * Math.sin(i / 4000))) }]) })
    modelId = created.statusCode === 201 ? (created.json() as { _id: string })._id : 'festival-slt'
  })
  const multipartOf = (parts: Parameters<typeof multipart>[0]) => {
    const m = multipart(parts)
    return { payload: m.body, headers: { ...s.asAlice, 'content-type': m.contentType } }
  }
  const urlOf = (op: Operation, path: Record<string, string> = {}, query = '') =>
    op.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(path[name] ?? (name === 'id' ? modelId : '0'))) + (query ? `?${query}` : '')

  it('covers the routes a client sends content to', () => {
    const names = operations.map((o) => `${o.method} ${o.path}`)
    for (const route of ['POST /v1/tts', 'POST /v1/tts/stream/with-timestamp', 'POST /model', 'PATCH /model/{id}', 'GET /model', 'POST /v1/asr']) expect(names).toContain(route)
  })

  it('each body field of the wrong type, in JSON and MessagePack', async () => {
    let seen422 = 0
    for (const op of operations.filter((o) => o.hasBody)) {
      for (const [name, schema] of Object.entries(op.properties)) {
        const body = { text: 'Hello.', [name]: wrongValue(schema.type) }
        for (const [type, payload] of [['application/json', JSON.stringify(body)], ['application/msgpack', Buffer.from(encode(body))]] as const) {
          const res = await s.app.inject({ method: op.method as 'POST', url: urlOf(op), headers: { ...s.asAlice, 'content-type': type }, payload })
          const issues = checkShape(res, `${op.method} ${op.path} ${name} (${type})`)
          if (issues) seen422++
        }
      }
      // No fields at all: what is required is missing.
      const empty = await s.app.inject({ method: op.method as 'POST', url: urlOf(op), headers: { ...s.asAlice, 'content-type': 'application/json' }, payload: '{}' })
      checkShape(empty, `${op.method} ${op.path} {}`)
    }
    expect(seen422).toBeGreaterThan(20)
  })

  it('each query and path parameter malformed', async () => {
    for (const op of operations) {
      for (const p of op.params.filter((q) => q.in === 'query' || q.in === 'path')) {
        const bad = p.schema?.type === 'string' ? '%00' : 'not-a-number'
        const url = p.in === 'query' ? urlOf(op, {}, `${p.name}=${bad}`) : urlOf(op, { [p.name]: bad })
        const withBody = op.method === 'POST' || op.method === 'PATCH'
        const res = await s.app.inject({ method: op.method as 'GET', url, headers: { ...s.asAlice, ...(withBody && { 'content-type': 'application/json' }) }, ...(withBody && { payload: '{}' }) })
        checkShape(res, `${op.method} ${url}`)
      }
    }
  })
})

describe('checks after parsing: the same 422 list, naming the field', () => {
  const silence = (seconds: number) => wavBytes(new Float32Array(Math.round(seconds * 16_000)), 16_000)
  const json = (url: string, body: object) => s.app.inject({ method: 'POST', url, headers: { ...s.asAlice, 'content-type': 'application/json' }, payload: JSON.stringify(body) })
  const msgpack = (url: string, body: object) => s.app.inject({ method: 'POST', url, headers: { ...s.asAlice, 'content-type': 'application/msgpack' }, payload: Buffer.from(encode(body)) })
  const form = (url: string, parts: Parameters<typeof multipart>[0]) => {
    const m = multipart(parts)
    return s.app.inject({ method: 'POST', url, headers: { ...s.asAlice, 'content-type': m.contentType }, payload: m.body })
  }
  const expectField = (res: Answer, loc: string[], what: string) => {
    expect(res.statusCode, `${what}: ${res.body}`).toBe(422)
    const issues = checkShape(res, what)!
    expect(issues.map((i) => i.loc), what).toContainEqual(loc)
  }

  it.each([
    ['empty text', { text: '' }, ['body', 'text']],
    ['blank text', { text: ' \n\t ' }, ['body', 'text']],
    ['nothing speakable', { text: '...!?' }, ['body', 'text']],
    ['symbols the voice cannot say', { text: '∑∫√∞' }, ['body', 'text']],
    ['broken SSML', { text: '<speak>Hello <break time="soon"/></speak>' }, ['body', 'text']],
    ['a reference without its transcript', { text: 'Hello.', references: [{ audio: Buffer.from(silence(2)).toString('base64') }] }, ['body', 'references', '0', 'text']],
    ['a reference with empty audio', { text: 'Hello.', references: [{ audio: '', text: 'Hi.' }] }, ['body', 'references', '0', 'audio']],
  ] as const)('TTS: %s, on /v1/tts and SSE, JSON and MessagePack', async (what, body, loc) => {
    for (const url of ['/v1/tts', '/v1/tts/stream/with-timestamp']) {
      expectField(await json(url, body), [...loc], `${what} ${url} json`)
      expectField(await msgpack(url, body), [...loc], `${what} ${url} msgpack`)
    }
  })

  it('ASR: an empty file, not audio, too short; multipart and MessagePack', async () => {
    const cases: [string, Uint8Array][] = [['empty', new Uint8Array(0)], ['not audio', new TextEncoder().encode('notes')], ['too short', silence(0.5)]]
    for (const [what, bytes] of cases) {
      expectField(await form('/v1/asr', [{ name: 'audio', filename: 'a.wav', data: bytes }]), ['body', 'audio'], `asr ${what} multipart`)
      expectField(await msgpack('/v1/asr', { audio: bytes }), ['body', 'audio'], `asr ${what} msgpack`)
    }
    expectField(await msgpack('/v1/asr', {}), ['body', 'audio'], 'asr missing audio')
  })

  it('voice models: an empty sample, a sample that is not audio, a transcript for no sample', async () => {
    const base = [{ name: 'title', value: 'Bad' }, { name: 'type', value: 'tts' }, { name: 'train_mode', value: 'fast' }]
    const empty = await form('/model', [...base, { name: 'voices', filename: 'empty.wav', data: new Uint8Array(0) }])
    expect(empty.statusCode).toBe(422)
    checkShape(empty, 'empty sample')
    const notAudio = await form('/model', [...base, { name: 'voices', filename: 'notes.txt', data: new TextEncoder().encode('notes') }])
    expect(notAudio.statusCode).toBe(422)
    checkShape(notAudio, 'not audio sample')
    const texts = await form('/model', [...base, { name: 'voices', filename: 'v.wav', data: silence(12) }, { name: 'texts', value: 'one' }, { name: 'texts', value: 'two' }])
    if (texts.statusCode >= 400) checkShape(texts, 'more transcripts than samples')
  })

  it('an unknown reference_id stays the 404 {status, message} a client maps to "not found"', async () => {
    const res = await json('/v1/tts', { text: 'Hello.', reference_id: 'nobody-has-this' })
    expect(res.statusCode).toBe(404)
    expect(Object.keys(res.json() as object).sort()).toEqual(['message', 'status'])
  })
})
