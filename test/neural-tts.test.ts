import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createLogger } from '../src/logger.js'
import { startTestServer, type TestServer } from './helpers/app.js'
import { pcm16 } from './helpers/tts-audio.js'
import { PHONEMES, writeKokoroLayout, writePiperVoice, writeSherpaVits } from './support/neural-models.js'
import { decodeTones, TOKEN_SECONDS } from './support/onnx/tone-vits.js'

/**
 * A Piper voice folder and a sherpa-onnx VITS release, as published but with synthetic tone models, served
 * through the real runtime (sherpa-onnx in a host process) and Parla's real discovery, routing and TTS path.
 * The tones are decoded back into phoneme ids: eSpeak NG's phonemes for the text must arrive, in order,
 * with Piper's BOS/pad/EOS framing, at the model's speed.
 */
let s: TestServer
let modelsDir: string
const RATE = 24_000
const SEGMENT = TOKEN_SECONDS * RATE

beforeAll(async () => {
  modelsDir = await mkdtemp(join(tmpdir(), 'parla-neural-'))
  await writePiperVoice(modelsDir, 'en_US-tone-low')
  await writePiperVoice(modelsDir, 'en_US-duo-low', { speakers: ['ann', 'bob'] })
  await writeSherpaVits(modelsDir, 'vits-piper-en_US-sherpa-low')
  await writePiperVoice(modelsDir, 'de_DE-tone-low', { language: 'de_DE' })
  await writeKokoroLayout(modelsDir, 'kokoro-en-v0_19')
  s = await startTestServer({ modelsDir, ttsRoutes: 's1=neural-en-us-duo-low-bob; *:de=neural-de-de-tone-low; *=neural-en-us-tone-low' })
})

afterAll(async () => {
  await s?.close()
  await rm(modelsDir, { recursive: true, force: true })
})

const speak = async (body: Record<string, unknown>, model?: string) => {
  const res = await s.app.inject({ method: 'POST', url: '/v1/tts', headers: { ...s.asAlice, ...(model && { model }) }, payload: { format: 'pcm', sample_rate: RATE, normalize: false, ...body } })
  expect(res.statusCode, res.body).toBe(200)
  return pcm16(res.rawPayload)
}

/** Phoneme string and framing of decoded ids: `^ _` + (phoneme, `_`)… + `$`, the way Piper feeds its model. */
const phonemes = (ids: readonly number[]) => {
  expect(ids[0]).toBe(PHONEMES.indexOf('^'))
  expect(ids.at(-1)).toBe(PHONEMES.indexOf('$'))
  const body = ids.slice(1, -1)
  // Pads around every phoneme.
  expect(body.filter((_, i) => i % 2 === 0).every((id) => id === 0)).toBe(true)
  return body.filter((_, i) => i % 2 === 1).map((id) => PHONEMES[id]).join('')
}

describe('neural TTS through the runtime', () => {
  it('lists each voice (and each speaker) as a built-in voice model', async () => {
    const engine = await s.deps.speech.engines.get('neural')
    expect(engine.voices().map((v) => v.id).sort()).toEqual(['de_DE-tone-low', 'en_US-duo-low-ann', 'en_US-duo-low-bob', 'en_US-tone-low', 'kokoro-en-v0_19-af_heart', 'kokoro-en-v0_19-am_adam', 'vits-piper-en_US-sherpa-low'])
    expect(engine.voices().find((v) => v.id === 'en_US-tone-low')!.languages).toEqual(['en-us'])
  })

  it('speaks eSpeak NG phonemes of the text, in order, at the requested sample rate', async () => {
    const audio = await speak({ text: 'Hello world.', reference_id: 'neural-en-us-tone-low' })
    const { ids } = decodeTones(audio, RATE, SEGMENT)
    expect(phonemes(ids)).toBe('həlˈoʊ wˈɜːld.')
  })

  it('passes the speaker id of a multi-speaker voice', async () => {
    for (const [voice, speaker] of [['neural-en-us-duo-low-ann', 0], ['neural-en-us-duo-low-bob', 1]] as const) {
      const audio = await speak({ text: 'Hello world.', reference_id: voice })
      const { ids, speakers } = decodeTones(audio, RATE, SEGMENT)
      expect(phonemes(ids)).toBe('həlˈoʊ wˈɜːld.')
      expect(new Set(speakers)).toEqual(new Set([speaker]))
    }
  })

  it('runs a sherpa-onnx VITS release folder too', async () => {
    const audio = await speak({ text: 'Hello world.', reference_id: 'neural-vits-piper-en-us-sherpa-low' })
    const { ids } = decodeTones(audio, RATE, SEGMENT)
    expect(phonemes(ids)).toBe('həlˈoʊ wˈɜːld.')
  })

  it('runs a sherpa-onnx Kokoro release: each speaker (style vectors from voices.bin) is a voice', async () => {
    for (const [voice, speaker] of [['neural-kokoro-en-v0-19-af-heart', 0], ['neural-kokoro-en-v0-19-am-adam', 1]] as const) {
      const { ids, speakers } = decodeTones(await speak({ text: 'Hello world.', reference_id: voice }), RATE, SEGMENT)
      expect(ids.map((id) => PHONEMES[id]).join('')).toContain('həlˈoʊ wˈɜːld.')
      expect(new Set(speakers)).toEqual(new Set([speaker]))
    }
  })

  it('passes the speed to the model (length_scale), not by stretching afterwards', async () => {
    const normal = await speak({ text: 'Hello world.', reference_id: 'neural-en-us-tone-low' })
    const fast = await speak({ text: 'Hello world.', reference_id: 'neural-en-us-tone-low', prosody: { speed: 2 } })
    const { ids } = decodeTones(fast, RATE, SEGMENT / 2)
    expect(phonemes(ids)).toBe('həlˈoʊ wˈɜːld.')
    expect(fast.length / normal.length).toBeCloseTo(0.5, 1)
  })
})

describe('routing by the model header and language (ttsRoutes)', () => {
  const decoded = (audio: Float32Array) => decodeTones(audio, RATE, SEGMENT)

  it('sends each model header, and unknown ones, to its configured voice', async () => {
    for (const [model, speaker] of [['s1', 1], ['s2-pro', 0], ['some-future-model', 0], [undefined, 0]] as const) {
      const { ids, speakers } = decoded(await speak({ text: 'Hello world.' }, model))
      expect(phonemes(ids)).toBe('həlˈoʊ wˈɜːld.')
      expect(new Set(speakers)).toEqual(new Set([speaker]))
    }
  })

  it('picks the default voice per language', async () => {
    const { ids } = decoded(await speak({ text: 'Guten Morgen, wie geht es dir heute?' }, 's2-pro'))
    // German phonemes from eSpeak NG's German voice, through the German model.
    expect(phonemes(ids)).toMatch(/^ɡˈuːtən mˈɔɾɡən, viː ɡˈeːt/)
  })
})

/** The runtime processes this test process started (sherpa-onnx hosts run as `node --input-type=module -e …`). */
async function runtimeProcesses(): Promise<number[]> {
  const pids: number[] = []
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '')
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '')
    // Field 4 of stat is the parent's pid (after the command in parentheses); a zombie has no cmdline.
    const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
    if (parent === process.pid && cmdline.includes('--input-type=module')) pids.push(Number(entry))
  }
  return pids
}

describe('neuralIdleSec: idle runtime processes give their memory back', () => {
  it('stops the processes after the idle time and starts them again for the next request, which speaks the same', async () => {
    const lines: string[] = []
    const idle = await startTestServer({ modelsDir, neuralIdleSec: 0.5, neuralProcesses: 2, logLevel: 'info' }, { logger: createLogger('info', { write: (line: string) => void lines.push(line) }) })
    try {
      const say = async () => {
        const res = await idle.app.inject({ method: 'POST', url: '/v1/tts', headers: idle.asAlice, payload: { text: 'Hello world.', reference_id: 'neural-en-us-tone-low', format: 'pcm', sample_rate: RATE, normalize: false } })
        expect(res.statusCode, res.body).toBe(200)
        return pcm16(res.rawPayload)
      }
      const before = new Set(await runtimeProcesses())
      const first = await say()
      const engine = await idle.deps.speech.engines.get('neural')
      // Promptness by its effect: the processes end on their own, however long the machine takes. (Nothing
      // here reads them while they run: on a slow enough machine they may be gone before a look.)
      await vi.waitFor(() => expect(lines.some((l) => /stopped the idle TTS processes/.test(l) && /"processes":2/.test(l))).toBe(true),
        { timeout: 60_000, interval: 100 })
      expect(engine.load!().size).toBe(0)
      await vi.waitFor(async () => expect((await runtimeProcesses()).filter((pid) => !before.has(pid))).toEqual([]),
        { timeout: 60_000, interval: 100 })
      const again = await say()
      expect(decodeTones(again, RATE, SEGMENT).ids).toEqual(decodeTones(first, RATE, SEGMENT).ids)
    } finally {
      await idle.close()
    }
  })
})
