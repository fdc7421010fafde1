import { encode } from '@msgpack/msgpack'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createLogger } from '../src/logger.js'
import { toWav } from './support/asr-speech.js'
import { loadConfig } from '../src/config/load.js'
import { createDeps } from '../src/deps.js'
import { startTestServer, type TestServer } from './helpers/app.js'
import { CTC_WORDS, writeNemoCtc, writePiperVoice } from './support/neural-models.js'
import { toneSpeech } from './support/onnx/tone-ctc.js'
import { runAsrEngineConformance } from './support/conformance/asr-engine.js'
import { createNeuralAsrEngine } from '../src/engines/asr/neural/index.js'
import { detectPackage } from '../src/models/detect.js'
import { processTable } from '../bench/proc-cpu.js'

/**
 * `/v1/asr` served by an ASR model package (a NeMo CTC release layout holding a synthetic tone model) through
 * the real runtime: the tones "say" words, which must come back in order with times on their tones.
 */
let s: TestServer
let modelsDir: string

beforeAll(async () => {
  modelsDir = await mkdtemp(join(tmpdir(), 'parla-neural-asr-'))
  await writeNemoCtc(modelsDir, 'sherpa-onnx-nemo-ctc-en-tone')
  await writePiperVoice(modelsDir, 'en_US-tone-low')
  s = await startTestServer({ modelsDir, asrEngine: 'sherpa-onnx-nemo-ctc-en-tone' })
})

afterAll(async () => {
  await s?.close()
  await rm(modelsDir, { recursive: true, force: true })
})

// The recognizer contract on festival's sentences (its own engine, after the package is written). The tone
// model hears tones, not speech, so its words for speech are not checked against the text.
runAsrEngineConformance({
  name: 'neural ASR (synthetic NeMo CTC)',
  create: async () => createNeuralAsrEngine((await detectPackage(modelsDir, 'sherpa-onnx-nemo-ctc-en-tone'))!, { processes: 1, threads: 1 }),
  maxWer: 1,
  skip: { accuracy: 'a synthetic model that maps tones to words, not a speech model' },
})

const asr = async (tokens: readonly number[], fields: Record<string, unknown> = {}) => {
  const res = await s.app.inject({ method: 'POST', url: '/v1/asr', headers: { ...s.asAlice, 'content-type': 'application/msgpack' }, payload: Buffer.from(encode({ audio: toWav(toneSpeech(tokens), 16_000), ...fields })) })
  return { status: res.statusCode, body: res.json() as { text: string; duration: number; segments: { text: string; start: number; end: number }[]; language: string; message?: string } }
}

describe('/v1/asr through a neural ASR package', () => {
  it('transcribes the words in order, with segment times on their tones', async () => {
    const tokens = [1, 5, 3, 8, 2, 2, 7]
    const { status, body } = await asr(tokens, { ignore_timestamps: false })
    expect(status, JSON.stringify(body)).toBe(200)
    expect(body.text.toLowerCase().replace(/[^a-z ]/g, '').trim()).toBe(tokens.map((t) => CTC_WORDS[t - 1]).join(' '))
    expect(body.language).toBe('en')
    const words = body.segments.flatMap((seg) => seg.text.toLowerCase().replace(/[^a-z ]/g, ' ').split(/\s+/).filter(Boolean))
    expect(words).toEqual(tokens.map((t) => CTC_WORDS[t - 1]))
    // Token i's tone starts at 0.15 + 0.35 i seconds: each segment starts near its first word's tone.
    for (const seg of body.segments) expect(seg.end).toBeGreaterThan(seg.start)
    expect(body.segments[0]!.start).toBeGreaterThan(0.05)
    expect(body.segments[0]!.start).toBeLessThan(0.35)
  })

  it('languages follow the model: one it does not know is a 422 naming the ones it does', async () => {
    const { status, body } = await asr([1, 2], { language: 'de' })
    expect(status).toBe(422)
    expect(JSON.stringify(body)).toMatch(/language 'de' is not supported; supported: en \(/)
  })

  it('routes by language: each language to its engine (asrEngine with <language>=<engine> entries)', async () => {
    await writeNemoCtc(modelsDir, 'sherpa-onnx-nemo-ctc-de-tone', ['eins', 'zwei', 'drei', 'vier', 'fünf', 'sechs', 'sieben', 'acht'], 'German')
    const routed = await startTestServer({ modelsDir, asrEngine: 'de=sherpa-onnx-nemo-ctc-de-tone *=sherpa-onnx-nemo-ctc-en-tone' })
    try {
      const say = async (language?: string) => {
        const res = await routed.app.inject({ method: 'POST', url: '/v1/asr', headers: { ...routed.asAlice, 'content-type': 'application/msgpack' }, payload: Buffer.from(encode({ audio: toWav(toneSpeech([1, 2, 3]), 16_000), ...(language && { language }) })) })
        expect(res.statusCode, res.body).toBe(200)
        return res.json() as { text: string; language: string }
      }
      expect(await say('de')).toMatchObject({ text: expect.stringMatching(/^eins zwei drei\.?$/i), language: 'de' })
      expect(await say('en')).toMatchObject({ text: expect.stringMatching(/^one two three\.?$/i), language: 'en' })
      // Detection left to the engines: the `*` engine answers.
      expect((await say()).text).toMatch(/^one two three\.?$/i)
    } finally {
      await routed.close()
    }
  })

  it('startup refuses an asrEngine that is not an installed ASR package, saying what to fix', async () => {
    for (const [id, message] of [['nothing-here', /no model package 'nothing-here'/], ['en_US-tone-low', /'en_US-tone-low' is a tts model/]] as const) {
      const config = loadConfig({ env: {}, flags: { dataDir: '/tmp/parla-test-unused', modelsDir, asrEngine: id } })
      await expect(createDeps(config, { inMemory: true })).rejects.toThrow(message)
    }
  })
})

/** This process's children running a neural host (`node --input-type=module -e …`). */
const neuralChildren = (): number[] =>
  [...processTable()].filter(([, p]) => p.ppid === process.pid && p.cmdline.includes('--input-type=module')).map(([pid]) => pid)

describe('an ASR package made ready at start', () => {
  it('has a process with the model loaded before the first request, and the first request uses it', async () => {
    const engine = createNeuralAsrEngine((await detectPackage(modelsDir, 'sherpa-onnx-nemo-ctc-en-tone'))!, { processes: 1, threads: 1 })
    try {
      const before = neuralChildren()
      await engine.ready!()
      const started = neuralChildren().filter((pid) => !before.includes(pid))
      expect(started).toHaveLength(1)
      const words = await engine.transcribe(toneSpeech([4, 1, 6]), { language: 'en' })
      expect(words.map((w) => w.word).join(' ')).toMatch(/^four one six\.?$/i)
      // No second process: the request was served by the one made ready.
      expect(neuralChildren().filter((pid) => !before.includes(pid))).toEqual(started)
    } finally {
      await engine.close()
    }
  })
})

describe('neuralIdleSec with an ASR package', () => {
  it('stops the idle recognizer processes, and the next request starts them and hears the same words', async () => {
    const lines: string[] = []
    const idle = await startTestServer({ modelsDir, asrEngine: 'sherpa-onnx-nemo-ctc-en-tone', neuralIdleSec: 0.3, logLevel: 'info' },
      { logger: createLogger('info', { write: (line: string) => void lines.push(line) }) })
    try {
      const hear = async () => {
        const res = await idle.app.inject({ method: 'POST', url: '/v1/asr', headers: { ...idle.asAlice, 'content-type': 'application/msgpack' }, payload: Buffer.from(encode({ audio: toWav(toneSpeech([4, 1, 6]), 16_000) })) })
        expect(res.statusCode, res.body).toBe(200)
        return (res.json() as { text: string }).text
      }
      const first = await hear()
      expect(first).toMatch(/^four one six\.?$/i)
      // By its effect, however long the machine takes: the log says the model's processes were stopped.
      await vi.waitFor(() => expect(lines.some((l) => /stopped the idle ASR processes/.test(l) && /"model":"sherpa-onnx-nemo-ctc-en-tone"/.test(l))).toBe(true),
        { timeout: 60_000, interval: 100 })
      expect(await hear()).toBe(first)
    } finally {
      await idle.close()
    }
  })
})
