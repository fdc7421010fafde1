import { cp, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { startWyomingServer, type WyomingServer } from '../src/api/wyoming/server.js'
import { NeuralHost, type SynthCall } from '../src/engines/neural/host.js'
import { seedBuiltinVoices } from '../src/voices/seed.js'
import { startTestServer, type TestServer } from './helpers/app.js'
import { parla } from './helpers/cli.js'
import { LiveClient } from './helpers/live.js'
import { createModel, waitForTraining } from './helpers/models.js'
import { parseSse, rebuild, expectWordsInOrderWithin } from './helpers/sse.js'
import { pcm16 } from './helpers/tts-audio.js'
import { voiceWav, wavBytes } from './helpers/voice-audio.js'
import { wyomingClient } from './helpers/wyoming-client.js'
import { ZIPVOICE_ARCHIVE, ZIPVOICE_PACKAGE } from './support/upstream-packages.js'

/**
 * A ZipVoice package built from k2-fsa/ZipVoice's own model code and exported by its own onnx_export.py, with
 * a Vocos vocoder from gemelo-ai/vocos's code (test/fixtures/models/zipvoice, scripts/models/zipvoice/build.sh),
 * added from its release-style archive by `parla models add` and run by the real runtime on every TTS surface.
 * The weights are random: what is checked is that each surface gets audio made by this model from the
 * reference it was given, not what the audio says (test/neural-zipvoice.test.ts checks that on a synthetic model).
 */
const RATE = 24_000
const VOICE = 'neural-sherpa-onnx-zipvoice-distill-zh-en-emilia'

let s: TestServer
let modelsDir: string
let wyoming: WyomingServer
const calls: SynthCall[] = []

beforeAll(async () => {
  modelsDir = await mkdtemp(join(tmpdir(), 'parla-zipvoice-upstream-'))
  const added = await parla(['models', 'add', ZIPVOICE_ARCHIVE, '--models-dir', modelsDir, '--data-dir', join(modelsDir, '.data')])
  expect(added.code, added.stderr).toBe(0)
  expect(added.stdout.toString()).toMatch(new RegExp(`installed ${ZIPVOICE_PACKAGE} \\(zipvoice tts`))
  const synthesize = NeuralHost.prototype.synthesize
  vi.spyOn(NeuralHost.prototype, 'synthesize').mockImplementation(function (this: NeuralHost, call, signal) {
    calls.push(call)
    return synthesize.call(this, call, signal)
  })
  s = await startTestServer({ modelsDir, ttsRoutes: `s1=${VOICE} *=${VOICE}` })
  wyoming = await startWyomingServer(s.deps, { host: '127.0.0.1', port: 0, log: s.app.log })
})

afterAll(async () => {
  await wyoming?.close()
  await s?.close()
  vi.restoreAllMocks()
  await rm(modelsDir, { recursive: true, force: true })
})

const toneWav = (hz: number) => wavBytes(Float32Array.from({ length: 16_000 }, (_, i) => 0.3 * Math.sin((2 * Math.PI * hz * i) / 16_000)), 16_000)
const reference = (hz = 300, text = 'hello world.') => ({ audio: Buffer.from(toneWav(hz)).toString('base64'), text })

/** The ZipVoice calls made since `since`, each with the prompt it carried. */
const zipvoiceCalls = (since: number) => calls.slice(since).filter((c) => c.key === ZIPVOICE_PACKAGE)

const expectAudio = (audio: Float32Array) => {
  expect(audio.length).toBeGreaterThan(RATE / 10)
  expect(audio.every(Number.isFinite)).toBe(true)
  expect(audio.some((x) => x !== 0)).toBe(true)
}

describe('ZipVoice built by its own code, through every TTS surface', () => {
  it('`models add` of the archive lists it ready; discovery gives its clone-only voice', async () => {
    const list = await parla(['models', 'list', '--models-dir', modelsDir, '--data-dir', join(modelsDir, '.data')])
    expect(list.stdout.toString()).toMatch(new RegExp(`${ZIPVOICE_PACKAGE}\\tzipvoice\\ttts\\ten,zh\\t${VOICE}\\tready`))
    await seedBuiltinVoices(s.deps.models.repo, s.deps.keys, s.deps.speech.engines)
    const model = await s.app.inject({ method: 'GET', url: `/model/${VOICE}`, headers: s.asAlice })
    expect(model.statusCode, model.body).toBe(200)
    expect(model.json()).toMatchObject({ state: 'trained', samples: [] })
  })

  it('/v1/tts clones the references; the prompt reaches the model and a longer text gives longer audio', async () => {
    const before = calls.length
    const speak = async (text: string, speed?: number) => {
      const res = await s.app.inject({ method: 'POST', url: '/v1/tts', headers: { ...s.asAlice, model: 's1' }, payload: { text, format: 'pcm', sample_rate: RATE, normalize: false, references: [reference()], ...(speed && { prosody: { speed } }) } })
      expect(res.statusCode, res.body).toBe(200)
      return pcm16(res.rawPayload)
    }
    const short = await speak('Hello world.')
    expectAudio(short)
    const long = await speak('Hello world, hello world, hello world, hello world.')
    expect(long.length).toBeGreaterThan(short.length * 1.5)
    const fast = await speak('Hello world, hello world, hello world, hello world.', 2)
    expect(fast.length).toBeLessThan(long.length * 0.75)
    const made = zipvoiceCalls(before)
    expect(made).toHaveLength(3)
    for (const c of made) expect(c.reference).toMatchObject({ text: 'hello world.' })
    expect(made.map((c) => c.speed)).toEqual([1, 1, 2])
  })

  it('Chinese text is read with the package lexicon', async () => {
    const res = await s.app.inject({ method: 'POST', url: '/v1/tts', headers: { ...s.asAlice, model: 's1' }, payload: { text: '你好世界。', format: 'pcm', sample_rate: RATE, normalize: false, references: [reference(300, '我们好。')] } })
    expect(res.statusCode, res.body).toBe(200)
    expectAudio(pcm16(res.rawPayload))
  })

  it('SSE: cloned audio with ordered word timings inside it', async () => {
    const res = await s.app.inject({ method: 'POST', url: '/v1/tts/stream/with-timestamp', headers: { ...s.asAlice, model: 's1' }, payload: { text: 'Hello world, and more words here.', format: 'pcm', sample_rate: RATE, references: [reference(5000)] } })
    expect(res.statusCode, res.body).toBe(200)
    const { audio, words } = rebuild(parseSse(res.body))
    expect(words.map((w) => w.text)).toEqual(['Hello', 'world', 'and', 'more', 'words', 'here'])
    const seconds = pcm16(audio).length / RATE
    expectWordsInOrderWithin(words, seconds)
  })

  it('the live socket speaks as the clone of the references in its start request', async () => {
    const before = calls.length
    const c = await LiveClient.connect(await s.listen(), s.asAlice)
    try {
      const { finish, audio } = await c.speak({ format: 'pcm', sample_rate: RATE, normalize: false, reference_id: VOICE, references: [{ audio: toneWav(300), text: 'hello world.' }] }, 'Hello world.')
      expect(finish).toEqual({ event: 'finish', reason: 'stop' })
      expectAudio(pcm16(audio))
    } finally {
      await c.close()
    }
    expect(zipvoiceCalls(before).length).toBeGreaterThan(0)
  })

  it('a trained voice model is cloned by ZipVoice on /v1/tts, OpenAI speech and Wyoming', async () => {
    const created = await createModel(s, s.asAlice, { voices: [voiceWav({ seconds: 2 })], texts: ['hello world.'], visibility: 'public' })
    expect((await waitForTraining(s, s.asAlice, created._id, 60_000)).state).toBe('trained')

    let before = calls.length
    const fish = await s.app.inject({ method: 'POST', url: '/v1/tts', headers: { ...s.asAlice, model: 's1' }, payload: { text: 'Hello world.', reference_id: created._id, format: 'pcm', sample_rate: RATE } })
    expect(fish.statusCode, fish.body).toBe(200)
    expectAudio(pcm16(fish.rawPayload))
    expect(zipvoiceCalls(before).map((c) => c.reference?.text)).toEqual(['hello world.'])

    before = calls.length
    const openai = await s.app.inject({ method: 'POST', url: '/v1/audio/speech', headers: { ...s.asAlice, 'content-type': 'application/json' }, payload: { model: 'tts-1', voice: created._id, input: 'Hello world.', response_format: 'pcm' } })
    expect(openai.statusCode, openai.body).toBe(200)
    expectAudio(pcm16(openai.rawPayload))
    expect(zipvoiceCalls(before).map((c) => c.reference?.text)).toEqual(['hello world.'])

    before = calls.length
    const c = await wyomingClient(wyoming.port)
    try {
      c.send('synthesize', { text: 'Hello world.', voice: { name: created._id } })
      const events = await c.until('audio-stop')
      expect(events.map((e) => e.type)).not.toContain('error')
      const bytes = Buffer.concat(events.filter((e) => e.type === 'audio-chunk').map((e) => e.payload!))
      expect(bytes.length).toBeGreaterThan(RATE / 10)
    } finally {
      c.close()
    }
    expect(zipvoiceCalls(before).map((c) => c.reference?.text)).toEqual(['hello world.'])
  })

  it('a second copy dropped in while running is taken in by the rescan the folder watcher runs', async () => {
    await cp(join(modelsDir, ZIPVOICE_PACKAGE), join(modelsDir, 'zipvoice-copy'), { recursive: true })
    const changes = await s.deps.speech.engines.rescan()
    expect(changes.flatMap((c) => c.changes.added).join(' ')).toMatch(/zipvoice-copy/)
    const res = await s.app.inject({ method: 'POST', url: '/v1/tts', headers: s.asAlice, payload: { text: 'Hello world.', reference_id: 'neural-zipvoice-copy', references: [reference()], format: 'pcm', sample_rate: RATE } })
    expect(res.statusCode, res.body).toBe(200)
    expectAudio(pcm16(res.rawPayload))
    expect(calls.at(-1)!.key).toBe('zipvoice-copy')
  })
})
