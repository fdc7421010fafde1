import { execFileSync } from 'node:child_process'
import { request } from 'node:http'
import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FestivalEngine } from '../src/engines/tts/festival/index.js'
import { startTestServer, type TestServer } from './helpers/app.js'
import { createModel, waitForTraining } from './helpers/models.js'
import { decode, pcm16, probe, speechRmsDb, type AnyFormat } from './helpers/tts-audio.js'

/**
 * The `openai` npm SDK, unmodified, against a listening Parla: `/v1/audio/speech` in every format (decoded
 * by ffmpeg, not Parla), both stream formats, OpenAI's error shape, the model and voice lists, and a replay
 * of how LiveKit's `openai.TTS` reads the SSE variant.
 */
const TEXT = 'The weather today is calm and clear. Trains are running on time, and the roads are quiet.'

let s: TestServer
let client: OpenAI
/** TEXT as 24 kHz pcm from the OpenAI route: the reference length for every format. */
let referenceSeconds: number

beforeAll(async () => {
  s = await startTestServer()
  const url = await s.listen()
  client = new OpenAI({ apiKey: s.alice, baseURL: `${url}/v1`, maxRetries: 0 })
  const pcm = Buffer.from(await (await client.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: TEXT, response_format: 'pcm' })).arrayBuffer())
  referenceSeconds = pcm16(pcm).length / 24000
  expect(referenceSeconds).toBeGreaterThan(3.5)
  expect(referenceSeconds).toBeLessThan(12)
})
afterAll(async () => {
  await s.close()
})

const CODECS: Record<Exclude<AnyFormat, 'pcm'>, { codec: string; rate: number }> = {
  mp3: { codec: 'mp3', rate: 24000 },
  opus: { codec: 'opus', rate: 48000 },
  aac: { codec: 'aac', rate: 24000 },
  flac: { codec: 'flac', rate: 24000 },
  wav: { codec: 'pcm_s16le', rate: 24000 },
}

describe('POST /v1/audio/speech through the openai SDK', () => {
  for (const format of ['mp3', 'opus', 'aac', 'flac', 'wav'] as const) {
    it(`${format}: a stream ffmpeg decodes, at OpenAI's rate, as long as the pcm reference, with speech in it`, async () => {
      const res = await client.audio.speech.create({ model: 'gpt-4o-mini-tts', voice: 'nova', input: TEXT, response_format: format })
      const bytes = Buffer.from(await res.arrayBuffer())
      const info = await probe(bytes, format)
      expect(info.codec).toBe(CODECS[format].codec)
      expect(info.sampleRate).toBe(CODECS[format].rate)
      expect(info.channels).toBe(1)
      const audio = await decode(bytes, format)
      expect(Math.abs(audio.seconds - referenceSeconds)).toBeLessThan(0.15)
      expect(speechRmsDb(audio.samples, audio.sampleRate)).toBeGreaterThan(-35)
    })
  }

  it('mp3 is the default format', async () => {
    const res = await client.audio.speech.create({ model: 'tts-1', voice: 'echo', input: 'Hello there.' })
    expect(res.headers.get('content-type')).toBe('audio/mpeg')
    expect((await probe(Buffer.from(await res.arrayBuffer()), 'mp3')).codec).toBe('mp3')
  })

  it('pcm is 24 kHz signed 16-bit: the same speech as the Fish route asked for 24 kHz pcm', async () => {
    const openai = Buffer.from(await (await client.audio.speech.create({ model: 'tts-1', voice: 'festival-slt', input: TEXT, response_format: 'pcm' })).arrayBuffer())
    const fish = await s.app.inject({ method: 'POST', url: '/v1/tts', headers: s.asAlice, payload: { text: TEXT, format: 'pcm', sample_rate: 24000, reference_id: 'festival-slt' } })
    expect(Math.abs(openai.length - fish.rawPayload.length)).toBeLessThan(24000 * 2 * 0.02)
  })

  it('stream_format sse: speech.audio.delta events carry the audio, then speech.audio.done with usage', async () => {
    const res = await client.audio.speech.create({ model: 'gpt-4o-mini-tts', voice: 'alloy', input: TEXT, response_format: 'pcm', stream_format: 'sse' })
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/)
    const events = (await res.text()).split('\n\n').filter(Boolean).map((block) => {
      expect(block.startsWith('data: ')).toBe(true)
      return JSON.parse(block.slice(6)) as { type: string; audio?: string; usage?: Record<string, number> }
    })
    const deltas = events.filter((e) => e.type === 'speech.audio.delta')
    expect(deltas.length).toBeGreaterThan(1)
    expect(events.at(-1)!.type).toBe('speech.audio.done')
    expect(events.filter((e) => e.type === 'speech.audio.done')).toHaveLength(1)
    const usage = events.at(-1)!.usage!
    expect(usage.input_tokens).toBe(Math.ceil(TEXT.length / 4))
    expect(usage.total_tokens).toBe(usage.input_tokens! + usage.output_tokens!)
    const pcm = Buffer.concat(deltas.map((d) => Buffer.from(d.audio!, 'base64')))
    expect(Math.abs(pcm.length / 48000 - referenceSeconds)).toBeLessThan(0.05)
    // 20 ms frames of what was sent.
    expect(usage.output_tokens).toBe(Math.ceil(pcm.length / 2 / 480))
  })

  it('sse with a child-process encoder (flac) decodes as one file', async () => {
    const res = await client.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'One, two, three, four.', response_format: 'flac', stream_format: 'sse' })
    const events = (await res.text()).split('\n\n').filter(Boolean).map((b) => JSON.parse(b.slice(6)) as { type: string; audio?: string })
    const flac = Buffer.concat(events.filter((e) => e.type === 'speech.audio.delta').map((e) => Buffer.from(e.audio!, 'base64')))
    expect((await probe(flac, 'flac')).codec).toBe('flac')
    expect((await decode(flac, 'flac')).seconds).toBeGreaterThan(1)
  })

  it('speed 2 halves the duration; speed 0.5 doubles it', async () => {
    const seconds = async (speed: number) =>
      pcm16(Buffer.from(await (await client.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: TEXT, response_format: 'pcm', speed })).arrayBuffer())).length / 24000
    const fast = await seconds(2)
    const slow = await seconds(0.5)
    expect(fast / referenceSeconds).toBeGreaterThan(0.4)
    expect(fast / referenceSeconds).toBeLessThan(0.65)
    expect(slow / referenceSeconds).toBeGreaterThan(1.7)
    expect(slow / referenceSeconds).toBeLessThan(2.3)
  })

  it('instructions act like s2-pro cues: "whisper" is as quiet as [whispering]', async () => {
    const level = async (input: string, instructions?: string) => {
      const res = await client.audio.speech.create({ model: 'gpt-4o-mini-tts', voice: 'alloy', input, response_format: 'pcm', ...(instructions && { instructions }) })
      return speechRmsDb(pcm16(Buffer.from(await res.arrayBuffer())), 24000)
    }
    const plain = await level(TEXT)
    const instructed = await level(TEXT, 'Please whisper this, and do not sound angry.')
    const cued = await level(`[whispering] ${TEXT}`)
    expect(plain - instructed).toBeGreaterThan(2)
    expect(Math.abs(instructed - cued)).toBeLessThan(0.5)
  })

  it('a model naming an engine speaks an OpenAI voice with that engine', async () => {
    const festival = Buffer.from(await (await client.audio.speech.create({ model: 'tts-1', voice: 'onyx', input: 'Good morning.', response_format: 'pcm' })).arrayBuffer())
    const espeak = Buffer.from(await (await client.audio.speech.create({ model: 'espeak-ng', voice: 'onyx', input: 'Good morning.', response_format: 'pcm' })).arrayBuffer())
    const espeakDirect = await s.app.inject({ method: 'POST', url: '/v1/tts', headers: s.asAlice, payload: { text: 'Good morning.', format: 'pcm', sample_rate: 24000, reference_id: 'espeak-ng-af' } })
    expect(espeak.length).not.toBe(festival.length)
    expect(espeak.length).toBeGreaterThan(0)
    expect(espeakDirect.statusCode).toBe(200)
  })
})

describe('voice models', () => {
  it('a cloned voice speaks by id and by title, as on /v1/tts; another account cannot use it', async () => {
    const created = await createModel(s, s.asAlice, { title: 'Narrator Anna', visibility: 'private', texts: ['This is my voice.'] })
    expect((await waitForTraining(s, s.asAlice, created._id as string, 60_000)).state).toBe('trained')
    const input = 'Good evening, and welcome.'
    const byId = Buffer.from(await (await client.audio.speech.create({ model: 'tts-1', voice: created._id as string, input, response_format: 'pcm' })).arrayBuffer())
    const byTitle = Buffer.from(await (await client.audio.speech.create({ model: 'tts-1', voice: { id: 'narrator anna' }, input, response_format: 'pcm' } as never)).arrayBuffer())
    const fish = await s.app.inject({ method: 'POST', url: '/v1/tts', headers: s.asAlice, payload: { text: input, format: 'pcm', sample_rate: 24000, reference_id: created._id } })
    expect(Math.abs(byId.length - fish.rawPayload.length)).toBeLessThan(24000 * 2 * 0.02)
    expect(Math.abs(byTitle.length - byId.length)).toBeLessThan(24000 * 2 * 0.02)
    const bob = new OpenAI({ apiKey: s.bob, baseURL: client.baseURL, maxRetries: 0 })
    await expect(bob.audio.speech.create({ model: 'tts-1', voice: created._id as string, input })).rejects.toBeInstanceOf(OpenAI.NotFoundError)
  }, 90_000)
})

describe('errors in OpenAI shape', () => {
  const rejects = async (call: () => Promise<unknown>) => {
    try {
      await call()
    } catch (err) {
      return err as InstanceType<typeof OpenAI.APIError>
    }
    throw new Error('expected the call to fail')
  }

  it('an unknown voice is a 404 naming it', async () => {
    const err = await rejects(() => client.audio.speech.create({ model: 'tts-1', voice: 'no-such-voice', input: 'Hi.' }))
    expect(err).toBeInstanceOf(OpenAI.NotFoundError)
    expect(err.error).toMatchObject({ type: 'invalid_request_error', code: 'voice_not_found' })
    expect((err.error as { message: string }).message).toContain('no-such-voice')
    expect((err.error as { message: string }).message).toContain('GET /v1/audio/voices')
  })

  it('a body that is not a JSON object is a 400 that says so (not an empty field name)', async () => {
    const res = await s.app.inject({ method: 'POST', url: '/v1/audio/speech', headers: { ...s.asAlice, 'content-type': 'application/json' }, payload: '[1]' })
    expect(res.statusCode).toBe(400)
    expect(res.json().error).toMatchObject({ param: null, message: expect.stringMatching(/^The request body must be of type object; send a JSON object/) })
  })

  it('input with nothing to say is a 400 naming input, in every format and stream format, never a 200 without audio', async () => {
    for (const [response_format, stream_format] of [['pcm', 'audio'], ['wav', 'audio'], ['mp3', 'sse']] as const) {
      const res = await s.app.inject({ method: 'POST', url: '/v1/audio/speech', headers: s.asAlice, payload: { input: ') …', voice: 'alloy', response_format, stream_format } })
      expect(res.statusCode).toBe(400)
      expect(res.json().error).toMatchObject({ param: 'input', message: expect.stringMatching(/^'input' has nothing to speak/) })
    }
  })

  it('speed out of range is a 400 with param speed', async () => {
    const err = await rejects(() => client.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'Hi.', speed: 5 }))
    expect(err).toBeInstanceOf(OpenAI.BadRequestError)
    expect(err.error).toMatchObject({ type: 'invalid_request_error', param: 'speed' })
  })

  it('an unknown response_format, a missing input and an empty input are 400s naming the field', async () => {
    const bad = await rejects(() => client.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'Hi.', response_format: 'ogg' as 'mp3' }))
    expect(bad.status).toBe(400)
    expect((bad.error as { param: string }).param).toBe('response_format')
    const missing = await rejects(() => client.post('/audio/speech', { body: { model: 'tts-1', voice: 'alloy' } }))
    expect(missing.status).toBe(400)
    expect((missing.error as { param: string }).param).toBe('input')
    const empty = await rejects(() => client.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: '  ' }))
    expect((empty.error as { param: string; message: string }).param).toBe('input')
  })

  it('a bad key is a 401 in OpenAI shape; Fish routes keep theirs', async () => {
    const stranger = new OpenAI({ apiKey: 'wrong', baseURL: client.baseURL, maxRetries: 0 })
    const err = await rejects(() => stranger.models.list())
    expect(err).toBeInstanceOf(OpenAI.AuthenticationError)
    expect(err.error).toMatchObject({ code: 'invalid_api_key', param: null })
    const fish = await s.app.inject({ method: 'GET', url: '/model', headers: { authorization: 'Bearer wrong' } })
    expect(fish.json()).toEqual({ status: 401, message: 'Invalid API key' })
  })
})

describe('unknown paths and wrong methods under the OpenAI prefixes', () => {
  const shape = (body: unknown) => expect(body).toEqual({ error: { message: expect.any(String), type: 'invalid_request_error', param: null, code: expect.any(String) } })

  it('a wrong method on /v1/audio/speech is a 405 in OpenAI shape with Allow; Fish routes keep theirs', async () => {
    const res = await s.app.inject({ method: 'GET', url: '/v1/audio/speech', headers: s.asAlice })
    expect(res.statusCode).toBe(405)
    expect(res.headers.allow).toBe('POST')
    shape(res.json())
    expect(res.json().error).toMatchObject({ code: 'method_not_allowed', message: expect.stringContaining('use POST') })
    const models = await s.app.inject({ method: 'DELETE', url: '/v1/models/tts-1', headers: s.asAlice })
    expect(models.statusCode).toBe(405)
    shape(models.json())
    const fish = await s.app.inject({ method: 'GET', url: '/v1/tts', headers: s.asAlice })
    expect(fish.statusCode).toBe(405)
    expect(Object.keys(fish.json()).sort()).toEqual(['message', 'status'])
  })

  it('an unknown path under /v1/audio is a 404 in OpenAI shape, through the SDK too; without a key, a 401 in OpenAI shape', async () => {
    const res = await s.app.inject({ method: 'POST', url: '/v1/audio/translations', headers: s.asAlice })
    expect(res.statusCode).toBe(404)
    shape(res.json())
    expect(res.json().error).toMatchObject({ code: 'not_found', message: expect.stringContaining('/v1/audio/translations') })
    await expect(client.post('/audio/nowhere', { body: {} })).rejects.toBeInstanceOf(OpenAI.NotFoundError)
    const anonymous = await s.app.inject({ method: 'GET', url: '/v1/audio/nowhere' })
    expect(anonymous.statusCode).toBe(401)
    expect(anonymous.json().error).toMatchObject({ code: 'invalid_api_key', param: null })
    const fish = await s.app.inject({ method: 'GET', url: '/v1/nowhere', headers: s.asAlice })
    expect(fish.json()).toMatchObject({ status: 404 })
    // URLs the router refuses before any route (found by fuzzing): an over-long segment, bad percent-encoding.
    const long = await s.app.inject({ method: 'GET', url: `/v1/models/${'a'.repeat(600)}`, headers: s.asAlice })
    expect(long.statusCode).toBe(404)
    shape(long.json())
    const badUrl = await s.app.inject({ method: 'GET', url: '/v1/models/%zz', headers: s.asAlice })
    expect(badUrl.statusCode).toBe(400)
    shape(badUrl.json())
  })
})

describe('models and voices', () => {
  it('GET /v1/models lists the speech and transcription models; retrieve finds one and 404s others', async () => {
    const ids = []
    for await (const m of client.models.list()) ids.push(m.id)
    expect(ids).toEqual(expect.arrayContaining(['tts-1', 'tts-1-hd', 'gpt-4o-mini-tts', 'whisper-1', 'festival', 's2-pro']))
    expect((await client.models.retrieve('tts-1')).owned_by).toBe('parla')
    await expect(client.models.retrieve('gpt-99')).rejects.toBeInstanceOf(OpenAI.NotFoundError)
  })

  it('GET /v1/audio/voices lists OpenAI names with their Parla voice, and built-in voice models', async () => {
    const res = await s.app.inject({ method: 'GET', url: '/v1/audio/voices', headers: s.asAlice })
    const { voices } = res.json() as { voices: { id: string; name: string; voice?: string }[] }
    expect(voices.find((v) => v.id === 'alloy')?.voice).toBe('festival-slt')
    expect(voices.map((v) => v.id)).toEqual(expect.arrayContaining(['ballad', 'verse', 'festival-slt', 'flite-rms']))
  })
})

/**
 * LiveKit's `openai.TTS` (livekit/agents PR #6409): for models other than tts-1/-hd it posts with
 * `stream_format: "sse"` and `response_format: "pcm"`, reads the body line by line, and pushes the base64
 * `audio` of every `speech.audio.delta` event; it fails with "no audio frames were pushed" otherwise.
 */
describe('LiveKit openai.TTS replay', () => {
  it('gets audio frames from speech.audio.delta events read line by line', async () => {
    const res = await fetch(`${s.url}/v1/audio/speech`, {
      method: 'POST',
      headers: { authorization: `Bearer ${s.alice}`, 'content-type': 'application/json' },
      body: JSON.stringify({ input: TEXT, model: 'gpt-4o-mini-tts', voice: 'ash', response_format: 'pcm', speed: 1, instructions: 'calm', stream_format: 'sse' }),
    })
    expect(res.status).toBe(200)
    const frames: Buffer[] = []
    let pending = ''
    for await (const chunk of res.body!) {
      pending += Buffer.from(chunk).toString()
      const lines = pending.split('\n')
      pending = lines.pop()!
      for (const line of lines) {
        if (!line.startsWith('data: ')) continue
        const event = JSON.parse(line.slice(6)) as { type: string; audio?: string }
        if (event.type === 'speech.audio.delta') frames.push(Buffer.from(event.audio!, 'base64'))
      }
    }
    expect(frames.length).toBeGreaterThan(0)
    const seconds = Buffer.concat(frames).length / 48000
    expect(seconds).toBeGreaterThan(referenceSeconds * 0.8)
  })
})

describe('streaming and disconnects', () => {
  const LONG = Array.from({ length: 8 }, () => 'Engineers replaced the deck, the cables and most of the steel supports under the river.').join(' ')

  /** Posts and resolves once the first body bytes arrived, with a way to hang up. */
  const firstBytes = (body: object) => new Promise<{ destroy(): void }>((resolve, reject) => {
    const payload = Buffer.from(JSON.stringify(body))
    const req = request(new URL('/v1/audio/speech', s.url), { method: 'POST', headers: { authorization: `Bearer ${s.alice}`, 'content-type': 'application/json', 'content-length': payload.length } }, (res) => {
      expect(res.statusCode).toBe(200)
      res.once('data', () => resolve({ destroy: () => req.destroy() }))
    })
    req.on('error', (err) => (err.message.includes('socket hang up') ? undefined : reject(err)))
    req.end(payload)
  })
  const ffmpegChildren = () => {
    try {
      return execFileSync('pgrep', ['-P', String(process.pid), 'ffmpeg']).toString().trim().split('\n').filter(Boolean)
    } catch {
      return []
    }
  }

  for (const format of ['mp3', 'aac'] as const) {
    it(`${format}: the first bytes arrive while the engine is still speaking; hanging up stops the engine${format === 'aac' ? ' and ffmpeg' : ''}`, async () => {
      const festival = (await s.deps.speech.engines.get('festival')) as FestivalEngine
      const conn = await firstBytes({ model: 'tts-1', voice: 'alloy', input: LONG, response_format: format })
      expect(festival.processIds().busy.length).toBeGreaterThan(0)
      if (format === 'aac') expect(ffmpegChildren().length).toBeGreaterThan(0)
      conn.destroy()
      await expect.poll(() => festival.processIds().busy, { timeout: 5000 }).toEqual([])
      await expect.poll(ffmpegChildren, { timeout: 5000 }).toEqual([])
    })
  }
})
