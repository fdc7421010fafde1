import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { startWyomingServer, type WyomingServer } from '../src/api/wyoming/server.js'
import { NeuralHost, type SynthCall } from '../src/engines/neural/host.js'
import { addModel } from '../src/models/store.js'
import { seedBuiltinVoices } from '../src/voices/seed.js'
import { startTestServer, type TestServer } from './helpers/app.js'
import { parla } from './helpers/cli.js'
import { LiveClient } from './helpers/live.js'
import { parseSse, rebuild, expectWordsInOrderWithin } from './helpers/sse.js'
import { pcm16 } from './helpers/tts-audio.js'
import { wyomingClient } from './helpers/wyoming-client.js'
import { VITS_LJS_ARCHIVE, VITS_LJS_PACKAGE, VITS_PACKAGE, VITS_TWO_SPEAKERS, vitsArchive } from './support/upstream-packages.js'

/**
 * sherpa-onnx `vits-piper-*` packages built from rhasspy/piper's own training code, exported by its own
 * export_onnx.py and given sherpa-onnx's metadata and tokens.txt by sherpa-onnx's own add_meta_data.py
 * (test/fixtures/models/vits-piper, scripts/models/vits-piper/build.sh), added from their release-style
 * archives and run by the real runtime on every TTS surface; and the lexicon-based `vits-ljs` layout, built
 * from jaywalnut310/vits's code and exported by sherpa-onnx's own scripts/vits/export-onnx-ljs.py. Random weights: each surface must get audio from
 * this model for the voice it named, not intelligible speech.
 */
const RATE = 16_000
const VOICE = 'neural-vits-piper-en-us-parla-low'

let s: TestServer
let modelsDir: string
let wyoming: WyomingServer
const calls: SynthCall[] = []

beforeAll(async () => {
  modelsDir = await mkdtemp(join(tmpdir(), 'parla-vits-upstream-'))
  const added = await parla(['models', 'add', vitsArchive(VITS_PACKAGE), '--models-dir', modelsDir, '--data-dir', join(modelsDir, '.data')])
  expect(added.code, added.stderr).toBe(0)
  expect(added.stdout.toString()).toMatch(new RegExp(`installed ${VITS_PACKAGE} \\(vits tts, en\\)`))
  await addModel(modelsDir, VITS_LJS_ARCHIVE)
  const synthesize = NeuralHost.prototype.synthesize
  vi.spyOn(NeuralHost.prototype, 'synthesize').mockImplementation(function (this: NeuralHost, call, signal) {
    calls.push(call)
    return synthesize.call(this, call, signal)
  })
  s = await startTestServer({ modelsDir })
  wyoming = await startWyomingServer(s.deps, { host: '127.0.0.1', port: 0, log: s.app.log })
})

afterAll(async () => {
  await wyoming?.close()
  await s?.close()
  vi.restoreAllMocks()
  await rm(modelsDir, { recursive: true, force: true })
})

const expectAudio = (audio: Float32Array) => {
  expect(audio.length).toBeGreaterThan(RATE / 20)
  expect(audio.every(Number.isFinite)).toBe(true)
  expect(audio.some((x) => x !== 0)).toBe(true)
}

const tts = async (body: Record<string, unknown>) => {
  const res = await s.app.inject({ method: 'POST', url: '/v1/tts', headers: s.asAlice, payload: { format: 'pcm', sample_rate: RATE, normalize: false, ...body } })
  expect(res.statusCode, res.body).toBe(200)
  return pcm16(res.rawPayload)
}

describe('sherpa-onnx VITS packages built by the upstreams\' own code, through every TTS surface', () => {
  it('discovery lists the voice ready with its language; GET /model has it', async () => {
    const list = await parla(['models', 'list', '--models-dir', modelsDir, '--data-dir', join(modelsDir, '.data')])
    expect(list.stdout.toString()).toMatch(new RegExp(`${VITS_PACKAGE}\\tvits\\ttts\\ten\\t${VOICE}\\tready`))
    await seedBuiltinVoices(s.deps.models.repo, s.deps.keys, s.deps.speech.engines)
    const model = await s.app.inject({ method: 'GET', url: `/model/${VOICE}`, headers: s.asAlice })
    expect(model.statusCode, model.body).toBe(200)
    expect(model.json()).toMatchObject({ state: 'trained', languages: ['en'] })
  })

  it('/v1/tts: audio from this model, longer for a longer text, shorter at a higher speed', async () => {
    const before = calls.length
    const short = await tts({ text: 'Hello world.', reference_id: VOICE })
    expectAudio(short)
    const long = await tts({ text: 'Hello world, this is a longer test of the voice.', reference_id: VOICE })
    expect(long.length).toBeGreaterThan(short.length * 1.5)
    // The package's published noise draws new durations on every call, and each phoneme lasts at least a frame,
    // so one call at speed 2 is not exactly half of one at speed 1 (0.8 seen): compared over four calls each.
    const lengths = async (speed: number) => {
      let total = 0
      for (let i = 0; i < 4; i++) total += (await tts({ text: 'Hello world, this is a longer test of the voice.', reference_id: VOICE, prosody: { speed } })).length
      return total
    }
    expect(await lengths(2)).toBeLessThan(await lengths(1) * 0.9)
    expect(calls.slice(before).map((c) => [c.key, c.sid])).toEqual(Array.from({ length: 10 }, () => [VITS_PACKAGE, 0]))
  })

  it('SSE: the audio with ordered word timings inside it', async () => {
    const res = await s.app.inject({ method: 'POST', url: '/v1/tts/stream/with-timestamp', headers: s.asAlice, payload: { text: 'Hello world, and more words here.', reference_id: VOICE, format: 'pcm', sample_rate: RATE } })
    expect(res.statusCode, res.body).toBe(200)
    const { audio, words } = rebuild(parseSse(res.body))
    expect(words.map((w) => w.text)).toEqual(['Hello', 'world', 'and', 'more', 'words', 'here'])
    const seconds = pcm16(audio).length / RATE
    expectWordsInOrderWithin(words, seconds)
  })

  it('the live socket and OpenAI speech', async () => {
    const before = calls.length
    const c = await LiveClient.connect(await s.listen(), s.asAlice)
    try {
      const { finish, audio } = await c.speak({ format: 'pcm', sample_rate: RATE, normalize: false, reference_id: VOICE }, 'Hello world.')
      expect(finish).toEqual({ event: 'finish', reason: 'stop' })
      expectAudio(pcm16(audio))
    } finally {
      await c.close()
    }
    const openai = await s.app.inject({ method: 'POST', url: '/v1/audio/speech', headers: { ...s.asAlice, 'content-type': 'application/json' }, payload: { model: 'tts-1', voice: VOICE, input: 'Hello world.', response_format: 'pcm' } })
    expect(openai.statusCode, openai.body).toBe(200)
    expectAudio(pcm16(openai.rawPayload))
    expect(calls.slice(before).filter((c) => c.key === VITS_PACKAGE).length).toBeGreaterThanOrEqual(2)
  })

  it('Wyoming: info lists the voice, synthesize speaks with it', async () => {
    const before = calls.length
    const c = await wyomingClient(wyoming.port)
    try {
      c.send('describe')
      const info = await c.until('info')
      const voices = (info.at(-1)!.data.tts as { voices: { name: string }[] }[])[0]!.voices
      expect(voices.map((v) => v.name)).toContain(VOICE)
      c.send('synthesize', { text: 'Hello world.', voice: { name: VOICE } })
      const events = await c.until('audio-stop')
      expect(events.map((e) => e.type)).not.toContain('error')
      expect(Buffer.concat(events.filter((e) => e.type === 'audio-chunk').map((e) => e.payload!)).length).toBeGreaterThan(1000)
    } finally {
      c.close()
    }
    expect(calls.slice(before).map((c) => c.key)).toContain(VITS_PACKAGE)
  })

  it('a two-speaker package added while running: each speaker is its own voice, named as in its .onnx.json, told its speaker id', async () => {
    await addModel(modelsDir, vitsArchive(VITS_TWO_SPEAKERS))
    const changes = await s.deps.speech.engines.rescan()
    expect(changes.flatMap((c) => c.changes.added).join(' ')).toMatch(/parla2-low/)
    const before = calls.length
    const a = await tts({ text: 'Hello world.', reference_id: 'neural-vits-piper-en-us-parla2-low-alice' })
    const b = await tts({ text: 'Hello world.', reference_id: 'neural-vits-piper-en-us-parla2-low-bob' })
    expectAudio(a)
    expectAudio(b)
    expect(calls.slice(before).map((c) => [c.key, c.sid])).toEqual([[VITS_TWO_SPEAKERS, 0], [VITS_TWO_SPEAKERS, 1]])
  })

  it('the lexicon-based vits-ljs layout: listed ready, and spoken on /v1/tts, SSE, the live socket, OpenAI speech and Wyoming', async () => {
    const LJS = 'neural-vits-ljs'
    const list = await parla(['models', 'list', '--models-dir', modelsDir, '--data-dir', join(modelsDir, '.data')])
    expect(list.stdout.toString()).toMatch(new RegExp(`${VITS_LJS_PACKAGE}\\tvits\\ttts\\ten\\t${LJS}\\tready\\n`))
    const before = calls.length
    const ljsRate = 22_050
    const res = await s.app.inject({ method: 'POST', url: '/v1/tts', headers: s.asAlice, payload: { text: 'Hello world, this is a test.', reference_id: LJS, format: 'pcm', sample_rate: ljsRate, normalize: false } })
    expect(res.statusCode, res.body).toBe(200)
    expectAudio(pcm16(res.rawPayload))
    const sse = await s.app.inject({ method: 'POST', url: '/v1/tts/stream/with-timestamp', headers: s.asAlice, payload: { text: 'Hello world, and more words here.', reference_id: LJS, format: 'pcm', sample_rate: ljsRate } })
    expect(sse.statusCode, sse.body).toBe(200)
    expect(rebuild(parseSse(sse.body)).words.map((w) => w.text)).toEqual(['Hello', 'world', 'and', 'more', 'words', 'here'])
    const c = await LiveClient.connect(await s.listen(), s.asAlice)
    try {
      const { finish, audio } = await c.speak({ format: 'pcm', sample_rate: ljsRate, normalize: false, reference_id: LJS }, 'Hello world.')
      expect(finish).toEqual({ event: 'finish', reason: 'stop' })
      expectAudio(pcm16(audio))
    } finally {
      await c.close()
    }
    const openai = await s.app.inject({ method: 'POST', url: '/v1/audio/speech', headers: { ...s.asAlice, 'content-type': 'application/json' }, payload: { model: 'tts-1', voice: LJS, input: 'Hello world.', response_format: 'pcm' } })
    expect(openai.statusCode, openai.body).toBe(200)
    expectAudio(pcm16(openai.rawPayload))
    const w = await wyomingClient(wyoming.port)
    try {
      w.send('synthesize', { text: 'Hello world.', voice: { name: LJS } })
      const events = await w.until('audio-stop')
      expect(events.map((e) => e.type)).not.toContain('error')
    } finally {
      w.close()
    }
    expect(calls.slice(before).filter((c) => c.key === VITS_LJS_PACKAGE).length).toBeGreaterThanOrEqual(5)
  })
})
