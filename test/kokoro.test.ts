import { execFile } from 'node:child_process'
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { NeuralHost, type SynthCall } from '../src/engines/neural/host.js'
import { createNeuralEngine } from '../src/engines/tts/neural/index.js'
import { seedBuiltinVoices } from '../src/voices/seed.js'
import { startTestServer, type TestServer } from './helpers/app.js'
import { parseSse, rebuild } from './helpers/sse.js'
import { pcm16 } from './helpers/tts-audio.js'
import { FIXTURES, V019, V10, writeKokoroPackages } from './support/kokoro-packages.js'

/**
 * Kokoro packages built from hexgrad/kokoro's own model code and exported by sherpa-onnx's own Kokoro scripts
 * (test/fixtures/models/kokoro, scripts/models/kokoro/build.sh), in the v0.19 and the multi-language v1.0
 * layouts, through the real runtime and every TTS surface; and the broken variants made from them.
 */
const RATE = 24_000

let s: TestServer
let modelsDir: string
const loads: string[] = []
const calls: SynthCall[] = []

beforeAll(async () => {
  modelsDir = await mkdtemp(join(tmpdir(), 'parla-kokoro-'))
  await writeKokoroPackages(modelsDir)

  const load = NeuralHost.prototype.load
  vi.spyOn(NeuralHost.prototype, 'load').mockImplementation(function (this: NeuralHost, key, config, threads) {
    loads.push(key)
    return load.call(this, key, config, threads)
  })
  const synthesize = NeuralHost.prototype.synthesize
  vi.spyOn(NeuralHost.prototype, 'synthesize').mockImplementation(function (this: NeuralHost, call, signal) {
    calls.push(call)
    return synthesize.call(this, call, signal)
  })
  s = await startTestServer({ modelsDir })
})

afterAll(async () => {
  await s?.close()
  vi.restoreAllMocks()
  await rm(modelsDir, { recursive: true, force: true })
})

const tts = (body: Record<string, unknown>) =>
  s.app.inject({ method: 'POST', url: '/v1/tts', headers: { ...s.asAlice, 'content-type': 'application/json' }, payload: { format: 'pcm', sample_rate: RATE, normalize: false, ...body } })

const speak = async (body: Record<string, unknown>) => {
  const res = await tts(body)
  expect(res.statusCode, res.body).toBe(200)
  const audio = pcm16(res.rawPayload)
  expect(audio.length).toBeGreaterThan(RATE / 10)
  expect(audio.some((x) => Math.abs(x) > 0.01)).toBe(true)
  return audio
}

describe('Kokoro packages as sherpa-onnx publishes them', () => {
  it('v0.19: /v1/tts speaks every speaker, faster at a higher speed', async () => {
    const slow = await speak({ text: 'Hello world, this is a test.', reference_id: 'neural-kokoro-en-v0-19-af' })
    await speak({ text: 'Hello world, this is a test.', reference_id: 'neural-kokoro-en-v0-19-am-adam' })
    const fast = await speak({ text: 'Hello world, this is a test.', reference_id: 'neural-kokoro-en-v0-19-af', prosody: { speed: 1.5 } })
    expect(fast.length).toBeLessThan(slow.length * 0.85)
    // An English-only model is not told a language.
    expect(calls.filter((c) => c.key === V019).every((c) => c.lang === undefined)).toBe(true)
  })

  it('v1.0: the English and the Chinese voice of one package both speak, each told its language', async () => {
    calls.length = 0
    await speak({ text: 'Hello world, this is a test.', reference_id: 'neural-kokoro-multi-lang-v1-0-af-alloy' })
    await speak({ text: '你好世界。我们测试语音。', reference_id: 'neural-kokoro-multi-lang-v1-0-zf-xiaobei' })
    expect(calls.map((c) => [c.key, c.sid, c.lang])).toEqual([[V10, 0, 'en-us'], [V10, 1, 'cmn']])
  })

  it('v1.0 and v0.19 over SSE with word timing', async () => {
    for (const voice of ['neural-kokoro-multi-lang-v1-0-af-alloy', 'neural-kokoro-en-v0-19-af']) {
      const res = await s.app.inject({ method: 'POST', url: '/v1/tts/stream/with-timestamp', headers: { ...s.asAlice, 'content-type': 'application/json' }, payload: { text: 'Hello world.', reference_id: voice, format: 'pcm', sample_rate: RATE } })
      expect(res.statusCode, res.body).toBe(200)
      const { audio, words } = rebuild(parseSse(res.body))
      expect(audio.length).toBeGreaterThan(RATE / 10)
      expect(words.map((w) => w.text)).toEqual(['Hello', 'world'])
      expect(words.at(-1)!.end).toBeLessThanOrEqual(audio.length / 2 / RATE + 0.05)
    }
  })

  it('v1.0 and v0.19 through OpenAI speech', async () => {
    for (const voice of ['neural-kokoro-multi-lang-v1-0-zf-xiaobei', 'neural-kokoro-en-v0-19-am-adam']) {
      const res = await s.app.inject({ method: 'POST', url: '/v1/audio/speech', headers: { ...s.asAlice, 'content-type': 'application/json' }, payload: { model: 'tts-1', voice, input: voice.includes('zf') ? '你好世界' : 'Hello world.', response_format: 'pcm' } })
      expect(res.statusCode, res.body).toBe(200)
      expect(res.rawPayload.length).toBeGreaterThan(RATE / 10)
    }
  })
})

describe('broken Kokoro packages', () => {
  const broken = {
    'neural-kokoro-no-voices-af': /kokoro-no-voices is broken: voices\.bin is missing/,
    'neural-kokoro-short-voices-am-adam': /kokoro-short-voices is broken: voices\.bin has 522244 bytes/,
    'neural-kokoro-no-lexicon-zf-xiaobei': /kokoro-no-lexicon is broken: a multi-language Kokoro model/,
    'neural-kokoro-refused-af': /kokoro-refused is broken, the runtime refused it: .+/,
  }

  it('answer 409 naming the package and the reason on /v1/tts, SSE and OpenAI speech, every time, loading the refused one once', async () => {
    for (let round = 0; round < 2; round++) {
      for (const [voice, reason] of Object.entries(broken)) {
        const res = await tts({ text: 'Hello world.', reference_id: voice })
        expect(res.statusCode, res.body).toBe(409)
        expect(res.json().message).toMatch(reason)
        const sse = await s.app.inject({ method: 'POST', url: '/v1/tts/stream/with-timestamp', headers: { ...s.asAlice, 'content-type': 'application/json' }, payload: { text: 'Hello world.', reference_id: voice } })
        expect(sse.statusCode, sse.body).toBe(409)
        const openai = await s.app.inject({ method: 'POST', url: '/v1/audio/speech', headers: { ...s.asAlice, 'content-type': 'application/json' }, payload: { model: 'tts-1', voice, input: 'Hello world.' } })
        expect(openai.statusCode, openai.body).toBe(409)
        expect(openai.json().error.message).toMatch(reason)
      }
    }
    // Files the runtime can never load are never given to it; the refused package was loaded once.
    expect(loads.filter((k) => /no-voices|short-voices|no-lexicon/.test(k))).toEqual([])
    expect(loads.filter((k) => k === 'kokoro-refused')).toEqual(['kokoro-refused'])
    // Meanwhile the good voices speak.
    await speak({ text: 'Hello world.', reference_id: 'neural-kokoro-en-v0-19-af' })
  })

  it('GET /model lists their voices failed with the reason, the good ones trained; `parla models list` says broken and why', async () => {
    // The runtime's refusal is known once the package was tried (by the test above, or here).
    expect((await tts({ text: 'Hello.', reference_id: 'neural-kokoro-refused-af' })).statusCode).toBe(409)
    await seedBuiltinVoices(s.deps.models.repo, s.deps.keys, s.deps.speech.engines)
    const model = async (id: string) => (await s.app.inject({ method: 'GET', url: `/model/${id}`, headers: s.asAlice })).json()
    expect(await model('neural-kokoro-no-lexicon-af-alloy')).toMatchObject({ state: 'failed', state_reason: expect.stringMatching(/kokoro-no-lexicon is broken: a multi-language Kokoro model/) })
    expect(await model('neural-kokoro-refused-af')).toMatchObject({ state: 'failed', state_reason: expect.stringMatching(/kokoro-refused is broken, the runtime refused it/) })
    expect(await model('neural-kokoro-multi-lang-v1-0-zf-xiaobei')).toMatchObject({ state: 'trained', languages: ['zh'] })
    const { stdout } = await promisify(execFile)(process.execPath, [fileURLToPath(new URL('../bin/parla.js', import.meta.url)), 'models', 'list', '--models-dir', modelsDir, '--data-dir', join(modelsDir, '.data')])
    // `parla models add` says so too.
    const other = await mkdtemp(join(tmpdir(), 'parla-kokoro-add-'))
    try {
      const added = await promisify(execFile)(process.execPath, [fileURLToPath(new URL('../bin/parla.js', import.meta.url)), 'models', 'add', join(modelsDir, 'kokoro-no-lexicon'), '--models-dir', other, '--data-dir', join(other, '.data')])
      expect(added.stdout).toMatch(/installed kokoro-no-lexicon \(kokoro tts, en-us,zh\)\nbroken: a multi-language Kokoro model/)
    } finally {
      await rm(other, { recursive: true, force: true })
    }
    expect(stdout).toMatch(/kokoro-no-voices\tkokoro\ttts\ten\t.*\tbroken: voices\.bin is missing/)
    expect(stdout).toMatch(/kokoro-short-voices\tkokoro\ttts\ten\t.*\tbroken: voices\.bin has 522244 bytes/)
    expect(stdout).toMatch(/kokoro-no-lexicon\tkokoro\ttts\ten-us,zh\t.*\tbroken: a multi-language Kokoro model/)
    expect(stdout).toMatch(/kokoro-refused\tkokoro\ttts\ten\t.*\tbroken: the runtime refused it: ./)
    expect(stdout).toMatch(/kokoro-multi-lang-v1_0\tkokoro\ttts\ten-us,zh\tneural-kokoro-multi-lang-v1-0-af-alloy,neural-kokoro-multi-lang-v1-0-zf-xiaobei\tready/)
  })

  it('calls that come while a package is loaded the first time wait for that load instead of loading it again', async () => {
    await cp(join(modelsDir, 'kokoro-refused'), join(modelsDir, 'kokoro-refused-again'), { recursive: true })
    const engine = await createNeuralEngine({ neural: { modelsDir, processes: 3, threads: 1 } })
    try {
      const first = async () => {
        for await (const piece of engine.synthesize({ text: 'Hello.', voice: 'kokoro-refused-again-af' })) void piece
      }
      const results = await Promise.allSettled([first(), first(), first()])
      expect(results.map((r) => r.status === 'rejected' && (r.reason as { code: string }).code)).toEqual(['not_ready', 'not_ready', 'not_ready'])
      expect(loads.filter((k) => k === 'kokoro-refused-again')).toEqual(['kokoro-refused-again'])
    } finally {
      await engine.close()
      await rm(join(modelsDir, 'kokoro-refused-again'), { recursive: true, force: true })
    }
  })

  it('a restart remembers the refusal until the files change: no load, the voice says why', async () => {
    const before = loads.length
    const engine = await createNeuralEngine({ neural: { modelsDir, processes: 1, threads: 1 } })
    try {
      expect(engine.voices().find((v) => v.id === 'kokoro-refused-af')!.unavailable).toMatch(/runtime refused it/)
      expect(engine.voices().find((v) => v.id === 'kokoro-no-voices-af')!.unavailable).toMatch(/voices\.bin is missing/)
      expect(engine.voices().find((v) => v.id === `${V019}-af`)!.unavailable).toBeUndefined()
      const stream = engine.synthesize({ text: 'Hello.', voice: 'kokoro-refused-af' })
      await expect(stream[Symbol.asyncIterator]().next()).rejects.toMatchObject({ code: 'not_ready' })
      expect(loads.length).toBe(before)
      // Fixed files: the package is tried again.
      await cp(join(FIXTURES, V019, 'model.onnx'), join(modelsDir, 'kokoro-refused', 'model.onnx'))
      await engine.rescan!()
      expect(engine.voices().find((v) => v.id === 'kokoro-refused-af')!.unavailable).toBeUndefined()
      const pieces = []
      for await (const piece of engine.synthesize({ text: 'Hello.', voice: 'kokoro-refused-af' })) pieces.push(piece)
      expect(pieces.some((p) => p.samples.length > 0)).toBe(true)
      expect(JSON.parse(await readFile(join(modelsDir, '.parla-cache', 'load-checks.json'), 'utf8'))).toHaveProperty('kokoro-refused')
    } finally {
      await engine.close()
    }
  })
})
