import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { NeuralHost } from '../src/engines/neural/host.js'
import { detectPackage } from '../src/models/detect.js'
import { startTestServer, type TestServer } from './helpers/app.js'
import { LiveClient } from './helpers/live.js'
import { parseSse, rebuild, expectWordsInOrderWithin } from './helpers/sse.js'
import { pcm16 } from './helpers/tts-audio.js'
import { PHONEMES, writePiperVoice } from './support/neural-models.js'
import { decodeTones, TOKEN_SECONDS } from './support/onnx/tone-vits.js'

/** The other TTS surfaces (SSE with word timing, the live socket) and cancellation, on a synthetic Piper voice. */
let s: TestServer
let url: string
let modelsDir: string
const RATE = 24_000
const VOICE = 'neural-en-us-tone-low'

beforeAll(async () => {
  modelsDir = await mkdtemp(join(tmpdir(), 'parla-neural-'))
  await writePiperVoice(modelsDir, 'en_US-tone-low')
  s = await startTestServer({ modelsDir })
  url = await s.listen()
})

afterAll(async () => {
  await s?.close()
  await rm(modelsDir, { recursive: true, force: true })
})

const spokenPhonemes = (audio: Float32Array) => {
  const { ids } = decodeTones(audio, RATE, TOKEN_SECONDS * RATE)
  return ids.filter((id) => id > 3 || id === PHONEMES.indexOf(' ')).map((id) => PHONEMES[id]).join('')
}

describe('neural voices on every TTS surface', () => {
  it('SSE: words in order, on the audio, covering the text', async () => {
    const text = 'Good morning. The trains are on time today.'
    const res = await s.app.inject({ method: 'POST', url: '/v1/tts/stream/with-timestamp', headers: s.asAlice, payload: { text, reference_id: VOICE, format: 'pcm', sample_rate: RATE } })
    expect(res.statusCode, res.body).toBe(200)
    const events = parseSse(res.body)
    expect(events.length).toBeGreaterThan(1)
    const { audio, words } = rebuild(events)
    const seconds = pcm16(audio).length / RATE
    expect(words.map((w) => w.text)).toEqual(['Good', 'morning', 'The', 'trains', 'are', 'on', 'time', 'today'])
    expectWordsInOrderWithin(words, seconds)
    // Both sentences were spoken: the phonemes of each appear in the audio.
    const phonemes = spokenPhonemes(pcm16(audio))
    expect(phonemes).toContain('ɡˈʊd mˈɔːɹnɪŋ.')
    expect(phonemes).toContain('tɹˈeɪnz ɑːɹ')
  })

  it('the live socket speaks through the neural voice', async () => {
    const c = await LiveClient.connect(url, s.asAlice)
    try {
      const { finish, audio } = await c.speak({ format: 'pcm', sample_rate: RATE, reference_id: VOICE }, 'Hello world.')
      expect(finish).toEqual({ event: 'finish', reason: 'stop' })
      expect(spokenPhonemes(pcm16(audio))).toBe('həlˈoʊ wˈɜːld.')
    } finally {
      await c.close()
    }
  })
})

describe('cancellation in the runtime', () => {
  it('an aborted synthesis stops generating at the next sentence and frees the process', async () => {
    const pkg = (await detectPackage(modelsDir, 'en_US-tone-low'))!
    const host = new NeuralHost()
    try {
      await host.load(pkg.id, await pkg.prepare!(), 1)
      // Many sentences: the test voice speaks one in well under a millisecond, and on a busy machine the abort
      // reaches the runtime process only after dozens of them.
      const SENTENCES = 1000
      const sentences = Array.from({ length: SENTENCES }, (_, i) => `Sentence number ${i + 1} is here.`).join(' ')
      const controller = new AbortController()
      const run = host.synthesize({ key: pkg.id, text: sentences, sid: 0, speed: 1 }, controller.signal)
      const first = await run.next()
      expect(first.done).toBe(false)
      controller.abort()
      await expect(run.next()).rejects.toMatchObject({ name: 'AbortError' })
      expect(host.lastRun!.cancelled).toBe(true)
      expect(host.lastRun!.sentences).toBeLessThan(SENTENCES)
      // The same process serves the next call.
      const chunks: Float32Array[] = []
      for await (const c of host.synthesize({ key: pkg.id, text: 'Hello world.', sid: 0, speed: 1 })) chunks.push(c)
      expect(host.lastRun).toEqual({ sentences: 1, cancelled: false })
    } finally {
      host.terminate()
    }
  })
})
