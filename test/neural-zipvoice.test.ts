import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestServer, type TestServer } from './helpers/app.js'
import { LiveClient } from './helpers/live.js'
import { createModel, waitForTraining } from './helpers/models.js'
import { parseSse, rebuild, expectWordsInOrderWithin } from './helpers/sse.js'
import { pcm16 } from './helpers/tts-audio.js'
import { voiceWav, wavBytes } from './helpers/voice-audio.js'
import { generateBuiltinSamples } from '../src/services/models/builtin-samples.js'
import { seedBuiltinVoices } from '../src/voices/seed.js'
import { writePiperVoice, writeZipVoiceLayout, ZIPVOICE_TOKENS } from './support/neural-models.js'
import { decodeTones, TOKEN_SECONDS } from './support/onnx/tone-vits.js'

/**
 * Zero-shot cloning on a ZipVoice release (synthetic encoder, flow-matching decoder and Vocos vocoder, see
 * test/support/onnx/tone-zipvoice.ts) through the real runtime: `references`, and a trained voice model's
 * samples, reach the model as its prompt. The synthetic model says its prompt's transcript, then the text,
 * each token a tone, in a "voice" (a 25 Hz offset) taken from the loudest band of the reference audio.
 */
let s: TestServer
let modelsDir: string
const RATE = 24_000
const ZIPVOICE = 'neural-sherpa-onnx-zipvoice-tone'
const PIPER = 'neural-en-us-tone-low'

beforeAll(async () => {
  modelsDir = await mkdtemp(join(tmpdir(), 'parla-zipvoice-'))
  await writeZipVoiceLayout(modelsDir, 'sherpa-onnx-zipvoice-tone')
  await writePiperVoice(modelsDir, 'en_US-tone-low')
  s = await startTestServer({ modelsDir, ttsRoutes: `s1=${ZIPVOICE} *=neural-en-us-tone-low` })
})

afterAll(async () => {
  await s?.close()
  await rm(modelsDir, { recursive: true, force: true })
})

/** One second of a tone: a reference "speaker" whose loudest band is low (300 Hz) or high (5 kHz). */
const toneWav = (hz: number) => wavBytes(Float32Array.from({ length: 16_000 }, (_, i) => 0.3 * Math.sin((2 * Math.PI * hz * i) / 16_000)), 16_000)
const reference = (hz: number, text = 'parla hi.') => ({ audio: Buffer.from(toneWav(hz)).toString('base64'), text })

const speak = async (body: Record<string, unknown>, model?: string) => {
  const res = await s.app.inject({ method: 'POST', url: '/v1/tts', headers: { ...s.asAlice, ...(model && { model }) }, payload: { format: 'pcm', sample_rate: RATE, normalize: false, ...body } })
  return { status: res.statusCode, body: res.body, audio: res.statusCode === 200 ? pcm16(res.rawPayload) : new Float32Array(0) }
}

/** The tokens the model said, and the voice (0 low, 1 high) of each. */
const said = (audio: Float32Array) => {
  const { ids, speakers } = decodeTones(audio, RATE, TOKEN_SECONDS * RATE, ZIPVOICE_TOKENS.length)
  return { text: ids.map((id) => ZIPVOICE_TOKENS[id] ?? '').join(''), voices: new Set(speakers) }
}

/** eSpeak NG's phonemes, as sherpa-onnx's ZipVoice front end passes them ("parla" from the package's lexicon). */
const PROMPT = 'pˈɑɹlə hˈaɪ .'
const HELLO = 'həlˈoʊ wˈɜːld'

describe('ZipVoice zero-shot cloning through the runtime', () => {
  it('`references` routed by the model header: the transcript and the audio are the prompt', async () => {
    const low = await speak({ text: 'Hello world.', references: [reference(300)] }, 's1')
    expect(low.status, low.body).toBe(200)
    expect(said(low.audio).text).toMatch(new RegExp(`^${PROMPT}${HELLO}`))
    expect(said(low.audio).voices).toEqual(new Set([0]))
    // Another reference speaker: the same words in the other voice.
    const high = await speak({ text: 'Hello world.', references: [reference(5000)] }, 's1')
    expect(said(high.audio).text).toMatch(new RegExp(`^${PROMPT}${HELLO}`))
    expect(said(high.audio).voices).toEqual(new Set([1]))
  })

  it('passes the speed to the model', async () => {
    const normal = await speak({ text: 'Hello world.', references: [reference(300)] }, 's1')
    const fast = await speak({ text: 'Hello world.', references: [reference(300)], prosody: { speed: 2 } }, 's1')
    expect(fast.status, fast.body).toBe(200)
    const { ids } = decodeTones(fast.audio, RATE, (TOKEN_SECONDS / 2) * RATE, ZIPVOICE_TOKENS.length)
    expect(ids.map((id) => ZIPVOICE_TOKENS[id] ?? '').join('')).toMatch(new RegExp(`^${PROMPT}${HELLO}`))
    expect(fast.audio.length / normal.audio.length).toBeCloseTo(0.5, 1)
  })

  it('SSE: the cloned audio comes with ordered word timings on it', async () => {
    const res = await s.app.inject({ method: 'POST', url: '/v1/tts/stream/with-timestamp', headers: { ...s.asAlice, model: 's1' }, payload: { text: 'Hello world, and more words here.', format: 'pcm', sample_rate: RATE, references: [reference(5000)] } })
    expect(res.statusCode, res.body).toBe(200)
    const { audio, words } = rebuild(parseSse(res.body))
    expect(words.map((w) => w.text)).toEqual(['Hello', 'world', 'and', 'more', 'words', 'here'])
    const seconds = pcm16(audio).length / RATE
    expectWordsInOrderWithin(words, seconds)
  })

  it('a trained voice model speaks through ZipVoice with its samples and transcripts', async () => {
    const created = await createModel(s, s.asAlice, { voices: [voiceWav({ seconds: 2 })], texts: ['parla hi.'] })
    expect((await waitForTraining(s, s.asAlice, created._id, 60_000)).state).toBe('trained')
    const res = await speak({ text: 'Hello world.', reference_id: created._id }, 's1')
    expect(res.status, res.body).toBe(200)
    expect(said(res.audio).text).toMatch(new RegExp(`^${PROMPT}${HELLO}`))
  })

  it('the ZipVoice voice named directly takes the references; without any it says what to send', async () => {
    const res = await speak({ text: 'Hello world.', reference_id: ZIPVOICE, references: [reference(5000)] })
    expect(res.status, res.body).toBe(200)
    expect(said(res.audio).voices).toEqual(new Set([1]))
    const bare = await speak({ text: 'Hello world.', reference_id: ZIPVOICE })
    expect(bare.status).toBe(400)
    expect(bare.body).toMatch(/references/)
  })

  it('the live socket speaks as the clone of the references in its start request', async () => {
    const c = await LiveClient.connect(await s.listen(), s.asAlice)
    try {
      const { finish, audio } = await c.speak({ format: 'pcm', sample_rate: RATE, normalize: false, reference_id: ZIPVOICE, references: [{ audio: toneWav(5000), text: 'parla hi.' }] }, 'Hello world.')
      expect(finish).toEqual({ event: 'finish', reason: 'stop' })
      const { text, voices } = said(pcm16(audio))
      expect(text).toMatch(new RegExp(`^${PROMPT}${HELLO}`))
      expect(voices).toEqual(new Set([1]))
    } finally {
      await c.close()
    }
  })

  it('a request without references on the ZipVoice route is spoken by the default voice', async () => {
    const res = await speak({ text: 'Hello world.' }, 's1')
    expect(res.status, res.body).toBe(200)
    expect(res.audio.length).toBeGreaterThan(RATE / 2)
  })

  it('a transcript the model cannot read is a 422 saying so', async () => {
    const res = await speak({ text: 'Hello world.', references: [reference(300, '日本語')] }, 's1')
    expect(res.status, res.body).toBe(422)
    expect(res.body).toMatch(/reference transcript/)
  })

  it('a reference without a transcript is a 422 naming the field', async () => {
    const res = await speak({ text: 'Hello world.', references: [reference(300, '  ')] }, 's1')
    expect(res.status, res.body).toBe(422)
    expect(res.body).toMatch(/references.*text/)
  })

  it('a clone-only voice lists no sample of its own, and making the built-in samples leaves it out without errors', async () => {
    const voices = await seedBuiltinVoices(s.deps.models.repo, s.deps.keys, s.deps.speech.engines)
    const ours = voices.filter((v) => v.modelId === ZIPVOICE || v.modelId === PIPER)
    expect(ours.map((v) => v.modelId).sort()).toEqual([PIPER, ZIPVOICE].sort())
    const model = async (id: string) => (await s.app.inject({ method: 'GET', url: `/model/${id}`, headers: s.asAlice })).json() as { samples: unknown[] }
    expect((await model(ZIPVOICE)).samples).toEqual([])
    expect((await model(PIPER)).samples).toHaveLength(1)
    const errors: unknown[] = []
    const { db, blobs, speech } = s.deps
    const made = await generateBuiltinSamples({ db, blobs, engines: speech.engines, shared: false, onError: (err) => errors.push(err) }, ours, new AbortController().signal)
    expect(errors).toEqual([])
    expect(made).toBe(1)
    const sample = await s.app.inject({ method: 'GET', url: `/model/${PIPER}/samples/0`, headers: s.asAlice })
    expect(sample.statusCode).toBe(200)
    expect(sample.rawPayload.length).toBeGreaterThan(44)
  })
})
