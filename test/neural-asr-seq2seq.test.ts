import { encode } from '@msgpack/msgpack'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createNeuralAsrEngine } from '../src/engines/asr/neural/index.js'
import { detectPackage } from '../src/models/detect.js'
import { startTestServer, type TestServer } from './helpers/app.js'
import { toWav } from './support/asr-speech.js'
import { writeToneMoonshine, writeToneWhisper } from './support/neural-models.js'
import { MOONSHINE_WORDS, moonshineSpeech } from './support/onnx/tone-moonshine.js'
import { WHISPER_WORDS, whisperSpeech } from './support/onnx/tone-whisper.js'

/**
 * sherpa-onnx Whisper (tiny.en layout) and Moonshine releases holding synthetic graphs (tone-whisper.ts,
 * tone-moonshine.ts) through the real runtime: its feature extraction or preprocessor, encoder, greedy decoder
 * loops with their caches, offsets and end-of-text, and token tables, then Parla's discovery, `asrEngine`
 * and `/v1/asr`. The runtime decodes a whole utterance at once (no partial text to stream).
 */
let s: TestServer
let modelsDir: string

beforeAll(async () => {
  modelsDir = await mkdtemp(join(tmpdir(), 'parla-whisper-'))
  await writeToneWhisper(modelsDir, 'sherpa-onnx-whisper-tiny.en')
  s = await startTestServer({ modelsDir, asrEngine: 'sherpa-onnx-whisper-tiny.en', neuralProcesses: 1 })
})

afterAll(async () => {
  await s?.close()
  await rm(modelsDir, { recursive: true, force: true })
})

const said = (words: readonly number[]) => words.map((w) => WHISPER_WORDS[w - 1]).join(' ')

describe('Whisper through the runtime', () => {
  it('/v1/asr: the decoder loop runs to end-of-text and the words come back in order', async () => {
    const words = [1, 5, 3, 8, 2, 2, 7]
    const res = await s.app.inject({ method: 'POST', url: '/v1/asr', headers: { ...s.asAlice, 'content-type': 'application/msgpack' }, payload: Buffer.from(encode({ audio: toWav(whisperSpeech(words), 16_000) })) })
    expect(res.statusCode, res.body).toBe(200)
    const body = res.json() as { text: string; language: string }
    // Parla capitalises and closes the sentence; the words are the model's.
    expect(body.text.trim().toLowerCase()).toMatch(new RegExp(`^${said(words)}\\.?$`))
    expect(body.language).toBe('en')
  })

  it('an English-only model refuses other languages with a 422', async () => {
    const res = await s.app.inject({ method: 'POST', url: '/v1/asr', headers: { ...s.asAlice, 'content-type': 'application/msgpack' }, payload: Buffer.from(encode({ audio: toWav(whisperSpeech([1]), 16_000), language: 'de' })) })
    expect(res.statusCode).toBe(422)
  })

  it('an abort rejects at once and the process serves the next call', async () => {
    const pkg = (await detectPackage(modelsDir, 'sherpa-onnx-whisper-tiny.en'))!
    const engine = createNeuralAsrEngine(pkg, { processes: 1, threads: 1 })
    try {
      const controller = new AbortController()
      const pending = engine.transcribe(whisperSpeech([4, 4, 4, 4, 4, 4]), { language: 'en', signal: controller.signal })
      controller.abort()
      await expect(pending).rejects.toMatchObject({ name: 'AbortError' })
      const words = await engine.transcribe(whisperSpeech([6, 1]), { language: 'en' })
      expect(words.map((w) => w.word.toLowerCase())).toEqual(['six', 'one'])
    } finally {
      await engine.close()
    }
  })

  it('a decoder file the runtime cannot load: the call answers 409 naming the package and the runtime\'s reason', async () => {
    await writeToneWhisper(modelsDir, 'sherpa-onnx-whisper-broken.en')
    await writeFile(join(modelsDir, 'sherpa-onnx-whisper-broken.en', 'tiny.en-decoder.int8.onnx'), 'not a model')
    const engine = createNeuralAsrEngine((await detectPackage(modelsDir, 'sherpa-onnx-whisper-broken.en'))!, { processes: 1, threads: 1 })
    try {
      await expect(engine.transcribe(whisperSpeech([1]), { language: 'en' })).rejects.toMatchObject({ code: 'not_ready', message: expect.stringMatching(/ASR model package sherpa-onnx-whisper-broken\.en is broken, the runtime refused it: \S/) })
    } finally {
      await engine.close()
    }
  })
})

describe('Moonshine through the runtime', () => {
  it('/v1/asr: preprocessor, encoder, uncached then cached decoder, words in order', async () => {
    await writeToneMoonshine(modelsDir, 'sherpa-onnx-moonshine-tiny-en-int8')
    const server = await startTestServer({ modelsDir, asrEngine: 'sherpa-onnx-moonshine-tiny-en-int8', neuralProcesses: 1 })
    try {
      const words = [3, 1, 4, 1, 5, 8]
      const res = await server.app.inject({ method: 'POST', url: '/v1/asr', headers: { ...server.asAlice, 'content-type': 'application/msgpack' }, payload: Buffer.from(encode({ audio: toWav(moonshineSpeech(words), 16_000) })) })
      expect(res.statusCode, res.body).toBe(200)
      const expected = words.map((w) => MOONSHINE_WORDS[w - 1]).join(' ')
      expect((res.json() as { text: string }).text.trim().toLowerCase()).toMatch(new RegExp(`^${expected}\\.?$`))
    } finally {
      await server.close()
    }
  })
})
