/**
 * Fuzzing what the Fish surface decodes: voice model fields and samples on `/model` (create and patch) and
 * audio files on `/v1/asr`, as multipart, MessagePack and JSON, with corrupted WAV, MP3 and Ogg Opus files.
 * Samples are shorter than the 1 s minimum, so whatever decodes is still refused: the decoders run, nothing
 * trains or transcribes, and nothing may be left stored.
 */
import { encode } from '@msgpack/msgpack'
import fc from 'fast-check'
import { getEncoder } from '../../src/audio/encoders/registry.js'
import type { TestServer } from '../helpers/app.js'
import { multipart, PNG_1PX, voiceSamples, wavBytes } from '../helpers/voice-audio.js'
import { corrupt, corruption, field, hostileString, hostileValue, type CorruptionValue } from './arbitraries.js'
import { check, checkFishAnswer, storedState } from './invariants.js'
import { percentEncode, type FuzzProperty } from './property.js'

function encodeWith(format: 'mp3' | 'opus', samples: Float32Array, rate: number): Uint8Array {
  const session = getEncoder(format).create({ sampleRate: rate })
  const parts = [session.push(samples), session.end()]
  return Uint8Array.from(Buffer.concat(parts))
}

/** Short (0.6 s) files a client might upload, before damage. */
export function sampleFiles(): Record<string, Uint8Array> {
  const samples = voiceSamples({ seconds: 0.6, sampleRate: 48000 })
  return { wav: wavBytes(samples, 48000), mp3: encodeWith('mp3', samples, 48000), opus: encodeWith('opus', samples, 48000), png: PNG_1PX }
}

export interface Upload {
  readonly file: Uint8Array
  readonly filename: string
  readonly type: string
}

export const upload = (files: Record<string, Uint8Array>) =>
  fc.record({ base: fc.constantFrom(...Object.keys(files)), damage: fc.option(corruption, { nil: undefined }), filename: fc.oneof(fc.constantFrom('a.wav', 'a.mp3', 'a.ogg', '', '../x.wav', 'a'.repeat(300)), fc.stringMatching(/^[\x20-\x7e]{0,20}$/)), type: fc.constantFrom('audio/wav', 'audio/mpeg', 'audio/ogg', 'application/octet-stream', 'text/plain', '') })
    .map(({ base, damage, filename, type }): Upload => ({ file: damage ? corrupt(files[base]!, damage as CorruptionValue) : files[base]!, filename: filename.replace(/["\r\n]/g, ''), type }))

const FIXTURE = Symbol('the fixture model')

type Parts = Parameters<typeof multipart>[0]

/** The same fields in the three encodings: multipart parts (files as files), MessagePack (bin) or JSON (base64). */
function bodyOf(encoding: 'multipart' | 'msgpack' | 'json', fields: Record<string, unknown>, files: Record<string, Upload[]>) {
  if (encoding === 'multipart') {
    const parts: Parts[number][] = []
    for (const [name, v] of Object.entries(fields)) for (const one of [v].flat()) parts.push({ name, value: typeof one === 'string' ? one.replace(/\r?\n--/g, '') : JSON.stringify(one) ?? '' })
    for (const [name, list] of Object.entries(files)) for (const f of list) parts.push({ name, filename: f.filename, data: f.file, ...(f.type && { type: f.type }) })
    const { body, contentType } = multipart(parts)
    return { payload: body, type: contentType }
  }
  const withFiles = { ...fields, ...Object.fromEntries(Object.entries(files).map(([k, list]) => [k, list.map((f) => (encoding === 'json' ? Buffer.from(f.file).toString('base64') : f.file))])) }
  return encoding === 'json'
    ? { payload: JSON.stringify(withFiles), type: 'application/json' }
    : { payload: Buffer.from(encode(withFiles)), type: 'application/msgpack' }
}

const modelFields = fc.record(
  {
    title: field(fc.constantFrom('A voice', 'x')),
    visibility: field(fc.constantFrom('public', 'unlist', 'private')),
    type: field(fc.constantFrom('tts', 'svc')),
    train_mode: field(fc.constantFrom('fast', 'full')),
    description: field(hostileString),
    texts: field(fc.array(hostileString, { maxLength: 3 })),
    tags: field(fc.array(hostileString, { maxLength: 3 })),
    enhance_audio_quality: field(fc.constantFrom(true, false, 'true', 'false')),
    unknown_field: hostileValue,
  },
  { requiredKeys: [] },
)

/** One case's stored state must not change when the request failed. */
async function unchangedOnFailure(s: TestServer, status: number, before: { models: number; blobs: number }) {
  if (status < 400) return
  const after = await storedState(s)
  check(after.models === before.models && after.blobs === before.blobs, `a ${status} left data behind`, { before, after })
}

/** One real model of alice's, so PATCH reaches field validation rather than a 404 (made once, on first use). */
function fixtureModel(): (s: TestServer) => Promise<string> {
  let id: Promise<string> | undefined
  return (s) => (id ??= (async () => {
    const voice = Buffer.from(wavBytes(voiceSamples({ seconds: 1.5 }), 16000)).toString('base64')
    const res = await s.app.inject({ method: 'POST', url: '/model', headers: { ...s.asAlice, 'content-type': 'application/json' }, payload: { title: 'Fixture', voices: [voice] } })
    check(res.statusCode === 201, 'could not create the fixture model', res.body)
    const id = (res.json() as { _id: string })._id
    // Training writes files of its own; wait for it, so they are not taken for a failed request's leftovers.
    for (let i = 0; i < 600; i++) {
      const state = (await s.app.inject({ method: 'GET', url: `/model/${id}`, headers: s.asAlice })).json() as { state: string }
      if (state.state === 'trained' || state.state === 'failed') return id
      await new Promise((r) => setTimeout(r, 50))
    }
    throw new Error('the fixture model did not finish training in 30 s')
  })())
}

export function fishUploadProperties(): readonly FuzzProperty[] {
  const files = sampleFiles()
  const fixture = fixtureModel()
  const encoding = fc.constantFrom('multipart' as const, 'msgpack' as const, 'json' as const)
  const modelCreate: FuzzProperty = {
    name: 'POST /model and PATCH /model/{id}: hostile fields, corrupted voice samples and covers',
    runs: 60,
    property: (s) =>
      fc.asyncProperty(encoding, modelFields, fc.array(upload(files), { maxLength: 3 }), fc.option(upload(files), { nil: undefined }), fc.option(fc.oneof(hostileString, fc.constant(FIXTURE)), { nil: undefined }), async (enc, fields, voices, cover, target) => {
        const patchId = target === FIXTURE ? await fixture(s) : target
        const before = await storedState(s)
        const body = bodyOf(enc, fields, { voices, ...(cover && { cover_image: [cover] }) })
        const url = patchId === undefined ? '/model' : `/model/${percentEncode(patchId) || 'x'}`
        const method = patchId === undefined ? 'POST' : 'PATCH'
        const res = await s.app.inject({ method, url, headers: { ...s.asAlice, 'content-type': body.type }, payload: body.payload })
        checkFishAnswer(res.statusCode, res.headers, res.body)
        check(method !== 'POST' || res.statusCode !== 201, 'a model was created from samples shorter than the minimum', res.body.slice(0, 300))
        await unchangedOnFailure(s, res.statusCode, before)
      }) as never,
  }
  const asr: FuzzProperty = {
    name: 'POST /v1/asr: corrupted audio files and hostile fields',
    runs: 60,
    property: (s) =>
      fc.asyncProperty(encoding, upload(files), fc.record({ language: field(fc.constantFrom('en', 'zh', 'auto')), ignore_timestamps: field(fc.constantFrom(true, false, 'true')) }, { requiredKeys: [] }), fc.constantFrom('audio', 'file', 'Audio'), async (enc, file, fields, name) => {
        const before = await storedState(s)
        const body = bodyOf(enc, fields, { [name]: [file] })
        // MessagePack and JSON carry one audio value, not a list.
        const payload = enc === 'multipart' ? body.payload : enc === 'json'
          ? JSON.stringify({ ...fields, [name]: Buffer.from(file.file).toString('base64') })
          : Buffer.from(encode({ ...fields, [name]: file.file }))
        const res = await s.app.inject({ method: 'POST', url: '/v1/asr', headers: { ...s.asAlice, 'content-type': body.type }, payload })
        checkFishAnswer(res.statusCode, res.headers, res.body)
        check(res.statusCode !== 200, 'audio shorter than the 1 s minimum was transcribed', res.body.slice(0, 200))
        await unchangedOnFailure(s, res.statusCode, before)
      }) as never,
  }
  return [modelCreate, asr]
}
