/**
 * Other clients' HTTP requests replayed as their source sends them (issue 11): the official Python SDK's
 * account calls (`fishaudio` and legacy `fish_audio_sdk`), Home Assistant's setup, GetStream Vision Agents'
 * TTS with its default cloud voice, the n8n node's `Content-Type: application/json` on body-less requests,
 * and the Python SDK's error parsing. Field checks mirror the SDKs' pydantic models.
 */
import { encode } from '@msgpack/msgpack'
import { FishAudioClient } from 'fish-audio'
import { Session } from 'fish-audio-sdk'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SHIPPED_ALIASES } from '../src/services/models/voice-aliases.js'
import { seedBuiltinVoices } from '../src/voices/seed.js'
import { startTestServer, type TestServer } from './helpers/app.js'
import { createModel } from './helpers/models.js'

const NEW_SDK = { 'user-agent': 'fish-audio/python/1.3.0' }
const LEGACY_SDK = { 'user-agent': 'fish-audio/python/legacy' }
const VISION_AGENTS_VOICE = '03397b4c4be74759b72533b663fbd001'
/** The Python SDK's README example voice; used by no other test here before the log check. */
const SDK_EXAMPLE_VOICE = '802e3bc2b27e49c2995d23ef70e6ac89'

/** What `fishaudio.types.Credits` requires (pydantic): `_id`, `user_id`, `credit` (a finite Decimal), dates. */
function expectCredits(body: Record<string, unknown>, accountId: string) {
  expect(body).toMatchObject({ _id: expect.any(String), user_id: accountId, created_at: expect.any(String), updated_at: expect.any(String) })
  expect(typeof body.credit).toBe('string')
  expect(Number.isFinite(Number(body.credit))).toBe(true)
}

/** What `fishaudio.types.Package` and the legacy `PackageEntity` require: ints, and `finished_at` a string. */
function expectPackage(body: Record<string, unknown>, accountId: string) {
  expect(body).toMatchObject({ _id: expect.any(String), user_id: accountId, type: expect.any(String), created_at: expect.any(String), updated_at: expect.any(String), finished_at: expect.any(String) })
  expect(Number.isInteger(body.total) && Number.isInteger(body.balance)).toBe(true)
  expect(Number.isSafeInteger(body.total) && Number.isSafeInteger(body.balance)).toBe(true)
}

describe('clients replayed over HTTP', () => {
  let s: TestServer
  beforeAll(async () => {
    s = await startTestServer()
    await seedBuiltinVoices(s.deps.models.repo, s.deps.keys, s.deps.speech.engines)
  })
  afterAll(async () => s.close())

  const get = (url: string, headers: Record<string, string>) => s.app.inject({ method: 'GET', url, headers })

  it('Python SDK account.get_credits(check_free_credit=True) and get_package(): unlimited, said so, parseable', async () => {
    const credit = await get('/wallet/self/api-credit?check_free_credit=true', { ...s.asAlice, ...NEW_SDK })
    expect(credit.statusCode, credit.body).toBe(200)
    const c = credit.json()
    expectCredits(c, s.aliceAccount)
    expect(c).toMatchObject({ unlimited: true, credit: String(Number.MAX_SAFE_INTEGER), has_free_credit: false })
    const pkg = await get('/wallet/self/package', { ...s.asAlice, ...NEW_SDK })
    expect(pkg.statusCode, pkg.body).toBe(200)
    expectPackage(pkg.json(), s.aliceAccount)
    expect(pkg.json()).toMatchObject({ type: 'unlimited', unlimited: true, total: Number.MAX_SAFE_INTEGER, balance: Number.MAX_SAFE_INTEGER, finished_at: '' })
  })

  it('legacy get_api_credit() (no query) and get_package(); Home Assistant keys the entry by user_id', async () => {
    const credit = await get('/wallet/self/api-credit', { ...s.asAlice, ...LEGACY_SDK })
    expect(credit.statusCode).toBe(200)
    expectCredits(credit.json(), s.aliceAccount)
    // has_free_credit only when asked, as the cloud answers.
    expect(credit.json()).not.toHaveProperty('has_free_credit')
    expectPackage((await get('/wallet/self/package', { ...s.asAlice, ...LEGACY_SDK })).json(), s.aliceAccount)
    // A second key of the same account is the same user (Home Assistant's reauth and reconfigure check this).
    const second = await s.deps.keys.create('alice again', s.aliceAccount)
    const again = await get('/wallet/self/api-credit', { authorization: `Bearer ${second.key}` })
    expect(again.json().user_id).toBe(s.aliceAccount)
    expect((await get('/wallet/self/api-credit', s.asBob)).json().user_id).toBe(s.bobAccount)
  })

  it('npm SDKs: fish-audio user.get_api_credit/get_package and fish-audio-sdk getApiCredit/getPackage', async () => {
    await s.listen()
    const client = new FishAudioClient({ apiKey: s.alice, baseUrl: s.url })
    expectCredits((await client.user.get_api_credit()) as unknown as Record<string, unknown>, s.aliceAccount)
    expectPackage((await client.user.get_package()) as unknown as Record<string, unknown>, s.aliceAccount)
    const session = new Session(s.alice, s.url)
    expectCredits((await session.getApiCredit({ checkFreeCredit: true })) as unknown as Record<string, unknown>, s.aliceAccount)
    expectPackage((await session.getPackage()) as unknown as Record<string, unknown>, s.aliceAccount)
  })

  it('Home Assistant setup with a wrong key: 401 {status, message}, which both SDKs read as an auth error', async () => {
    const res = await get('/wallet/self/api-credit', { authorization: 'Bearer nope', ...NEW_SDK })
    expect(res.statusCode).toBe(401)
    expect(Object.keys(res.json()).sort()).toEqual(['message', 'status'])
    const bad = await get('/wallet/self/api-credit?check_free_credit=maybe', s.asAlice)
    expect(bad.statusCode).toBe(422)
  })

  it('Python SDK tts.convert: its full msgpack TTSRequest with `model: s2-pro` gives mp3', async () => {
    const request = {
      text: 'Hello from Python.', chunk_length: 200, format: 'mp3', sample_rate: null, mp3_bitrate: 128, opus_bitrate: 32,
      references: [], reference_id: null, normalize: true, latency: 'balanced', prosody: null, top_p: 0.7, temperature: 0.7,
      max_new_tokens: 1024, repetition_penalty: 1.2, min_chunk_length: 50, condition_on_previous_chunks: true, early_stop_threshold: 1.0,
    }
    const res = await s.app.inject({
      method: 'POST', url: '/v1/tts',
      headers: { ...s.asAlice, ...NEW_SDK, 'content-type': 'application/msgpack', model: 's2-pro' },
      payload: Buffer.from(encode(request)),
    })
    expect(res.statusCode, res.body).toBe(200)
    expect(res.headers['content-type']).toBe('audio/mpeg')
    expect(res.rawPayload.length).toBeGreaterThan(4000)
  })

  it('Vision Agents: legacy Session.tts with its default cloud voice speaks (alias), pcm 16 kHz', async () => {
    const request = {
      text: 'Hello from the agent.', chunk_length: 200, format: 'pcm', sample_rate: 16000, mp3_bitrate: 128, opus_bitrate: 32,
      references: [], reference_id: VISION_AGENTS_VOICE, normalize: true, latency: 'balanced', prosody: null, top_p: 0.7, temperature: 0.7,
    }
    const res = await s.app.inject({
      method: 'POST', url: '/v1/tts',
      headers: { ...s.asAlice, ...LEGACY_SDK, 'content-type': 'application/msgpack', model: 'speech-1.5' },
      payload: Buffer.from(encode(request)),
    })
    expect(res.statusCode, res.body).toBe(200)
    // 16-bit samples at 16 kHz: about a second of speech.
    expect(res.rawPayload.length).toBeGreaterThan(16_000)
  })

  it('each alias is logged once, however often it is used', async () => {
    const seen: string[] = []
    s.deps.aliases.onFirstUse((alias) => seen.push(alias))
    const speak = () => s.app.inject({
      method: 'POST', url: '/v1/tts', headers: { ...s.asAlice, 'content-type': 'application/json' },
      payload: { text: 'Hi.', format: 'wav', reference_id: SDK_EXAMPLE_VOICE },
    })
    expect((await speak()).statusCode).toBe(200)
    expect((await speak()).statusCode).toBe(200)
    expect((await get(`/model/${SDK_EXAMPLE_VOICE}`, s.asAlice)).statusCode).toBe(200)
    expect(seen).toEqual([SDK_EXAMPLE_VOICE])
  })

  it('GET /model/{alias} answers the model the alias speaks with; an unknown id stays a 404', async () => {
    for (const [alias, target] of Object.entries(SHIPPED_ALIASES)) {
      const res = await get(`/model/${alias}`, { ...s.asAlice, ...NEW_SDK })
      expect(res.statusCode, alias).toBe(200)
      expect(res.json()).toMatchObject({ _id: target, state: 'trained' })
    }
    expect((await get('/model/0123456789abcdef0123456789abcdef', s.asAlice)).statusCode).toBe(404)
  })

  it('n8n: Content-Type application/json with no body on DELETE and GET is no body; POST still needs one', async () => {
    const model = await createModel(s, s.asAlice)
    const n8n = { ...s.asAlice, 'content-type': 'application/json', accept: 'application/json' }
    expect((await s.app.inject({ method: 'GET', url: `/model/${model._id}`, headers: n8n })).statusCode).toBe(200)
    expect((await s.app.inject({ method: 'GET', url: '/model?self=true', headers: n8n })).statusCode).toBe(200)
    const del = await s.app.inject({ method: 'DELETE', url: `/model/${model._id}`, headers: n8n })
    expect({ status: del.statusCode, body: del.json() }).toEqual({ status: 200, body: { status: 'ok' } })
    expect((await s.app.inject({ method: 'GET', url: `/model/${model._id}`, headers: n8n })).statusCode).toBe(404)
    const post = await s.app.inject({ method: 'POST', url: '/v1/tts', headers: n8n })
    expect({ status: post.statusCode, body: post.json() }).toEqual({
      status: 400, body: { status: 400, message: 'Body is empty but Content-Type is application/json; send a JSON object' },
    })
  })

  it('blank text and non-audio ASR uploads are the 422 list naming the field, as the spec gives every 422', async () => {
    // fishaudio's _raise_for_status calls response.json().get("message"), which fails on any list (docs/decisions.md).
    const tts = await s.app.inject({
      method: 'POST', url: '/v1/tts', headers: { ...s.asAlice, ...NEW_SDK, 'content-type': 'application/msgpack' },
      payload: Buffer.from(encode({ text: '  ', format: 'mp3' })),
    })
    expect({ status: tts.statusCode, body: tts.json() }).toEqual({ status: 422, body: [{ loc: ['body', 'text'], type: 'string_too_short', msg: 'text is empty; send the text to speak', in: 'body' }] })
    const asr = await s.app.inject({
      method: 'POST', url: '/v1/asr', headers: { ...s.asAlice, ...NEW_SDK, 'content-type': 'application/msgpack' },
      payload: Buffer.from(encode({ audio: Buffer.from('not audio at all'), language: 'en', ignore_timestamps: true })),
    })
    expect(asr.statusCode).toBe(422)
    expect(asr.json()).toEqual([{ loc: ['body', 'audio'], type: 'value_error', msg: expect.stringContaining('is not audio'), in: 'body' }])
  })
})
