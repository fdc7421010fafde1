import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { NeuralHost } from '../src/engines/neural/host.js'
import { createNeuralEngine, NEURAL_SAMPLE_RATE } from '../src/engines/tts/neural/index.js'
import type { TtsEngine } from '../src/engines/tts/types.js'
import { discoverModels } from '../src/models/discover.js'
import { readOnnxMetadata } from '../src/models/onnx-metadata.js'
import { EXTERNAL, SINGLE, TWO, writePiperPackages } from './support/piper-packages.js'

/**
 * Piper voices built by rhasspy/piper's own training code and export (test/fixtures/models/piper,
 * scripts/models/piper/build.sh) through discovery and the real runtime: what their configs say is honoured,
 * and the variants the runtime cannot run are listed broken with what to fix. The voices through every
 * surface: test/piper-models.test.ts.
 */
let modelsDir: string
let engine: TtsEngine
const loads: { key: string; sampleRate: number }[] = []

beforeAll(async () => {
  modelsDir = await mkdtemp(join(tmpdir(), 'parla-piper-'))
  await writePiperPackages(modelsDir)
  const load = NeuralHost.prototype.load
  vi.spyOn(NeuralHost.prototype, 'load').mockImplementation(async function (this: NeuralHost, key, config, threads) {
    const model = await load.call(this, key, config, threads)
    loads.push({ key, sampleRate: model.sampleRate })
    return model
  })
  engine = await createNeuralEngine({ neural: { modelsDir, processes: 1, threads: 1 } })
})

afterAll(async () => {
  await engine?.close()
  vi.restoreAllMocks()
  await rm(modelsDir, { recursive: true, force: true })
})

const TEXT = 'Hello world, this is a test.'

async function speak(voice: string, rate = 1): Promise<Float32Array> {
  const pieces: Float32Array[] = []
  for await (const chunk of engine.synthesize({ text: TEXT, voice, rate }, { words: false })) pieces.push(chunk.samples)
  const out = new Float32Array(pieces.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const p of pieces) { out.set(p, at); at += p.length }
  expect(out.length).toBeGreaterThan(NEURAL_SAMPLE_RATE / 20)
  return out
}

/**
 * Same audio as 16-bit samples (what leaves Parla; the 1e-30 that stands for a 0 scale can never reach that
 * resolution), compared as bytes: a failing deep comparison of long arrays takes minutes to describe.
 */
const pcm = (a: Float32Array) => Buffer.from(Int16Array.from(a, (x) => Math.round(Math.max(-1, Math.min(1, x)) * 32_767)).buffer)
const same = (a: Float32Array, b: Float32Array) => pcm(a).equals(pcm(b))

describe('Piper voices from rhasspy/piper\'s own export', () => {
  it('are recognised with their languages and speakers; the broken variants are listed broken with what to fix', async () => {
    const { packages, problems } = await discoverModels(modelsDir)
    expect(problems).toEqual([])
    const byId = Object.fromEntries(packages.map((p) => [p.id, p]))
    expect(Object.values(byId).every((p) => p.family === 'piper')).toBe(true)
    expect(byId[SINGLE]).toMatchObject({ runnable: true, languages: ['en-us'], speakers: ['default'] })
    expect(byId[TWO]).toMatchObject({ runnable: true, speakers: ['alba', 'northern'] })
    expect(byId[EXTERNAL]).toMatchObject({ runnable: true })
    expect(byId['piper-no-language']).toMatchObject({ runnable: true, languages: ['en-us'] })
    // A multi-speaker model without a speaker map: its speakers are named by their index.
    expect(byId['piper-2spk-no-map']).toMatchObject({ runnable: true, speakers: ['0', '1'] })
    expect(byId['piper-no-espeak']).toMatchObject({ runnable: false, broken: true, note: expect.stringMatching(/\.onnx\.json has no espeak\.voice: .*add e\.g\. "espeak": \{"voice": "en-us"\}/) })
    expect(byId['piper-wrong-map']).toMatchObject({ runnable: false, broken: true, note: expect.stringMatching(/phoneme_id_map uses ids up to 300 but the model knows 256 phoneme symbols/) })
    expect(byId['piper-wrong-speakers']).toMatchObject({ runnable: false, broken: true, note: expect.stringMatching(/\.onnx\.json names 2 speakers but the model has one speaker/) })
    expect(byId['piper-truncated']).toMatchObject({ runnable: false, broken: true, note: expect.stringMatching(/^en_US-parla_test-medium\.onnx is truncated or damaged .*: copy or download it again$/) })
    expect(byId['piper-external-lost']).toMatchObject({ runnable: false, broken: true, note: expect.stringMatching(/keeps its weights in en_US-parla_test_external-medium\.onnx\.data, which is missing/) })
  })

  it('a config without a language block speaks (the language comes from espeak.voice; never an empty one for the runtime)', async () => {
    await speak('piper-no-language')
    const meta = await readOnnxMetadata(join(modelsDir, '.parla-cache', 'piper-no-language', 'model.onnx'))
    expect(meta.language).toBe('en-us')
    expect(meta.voice).toBe('en-us')
    // Both processes' loads succeeded, none ended.
    expect(loads.map((l) => l.key)).toContain('piper-no-language')
  })

  it('a model saved with external data speaks: the data file is prepared next to the model', async () => {
    await speak(EXTERNAL)
    expect(await readdir(join(modelsDir, '.parla-cache', EXTERNAL))).toContain(`${EXTERNAL}.onnx.data`)
  })

  it('noise_scale 0 and noise_w 0 are honoured: the same text gives the same samples each time', async () => {
    const a = await speak('piper-quiet')
    const b = await speak('piper-quiet')
    expect(same(a, b)).toBe(true)
    // The published scales make each run differ.
    expect(same(await speak(SINGLE), await speak(SINGLE))).toBe(false)
  })

  it('the voice\'s own length_scale is multiplied by 1/speed, not replaced by it', async () => {
    // length_scale 1.5 at speed s sounds as length_scale 1 at speed s/1.5.
    expect((await speak('piper-quiet-slow', 1.05)).length).toBe((await speak('piper-quiet', 1.05 / 1.5)).length)
    expect((await speak('piper-quiet-slow', 1)).length).toBe((await speak('piper-quiet', 1 / 1.5)).length)
    const slow = await speak('piper-quiet-slow', 1.05)
    const plain = await speak('piper-quiet', 1.05)
    expect(slow.length).toBeGreaterThan(plain.length * 1.3)
  })

  it('audio.sample_rate is the model\'s rate: 22500 Hz is reported and its audio comes at that rate', async () => {
    const at22050 = await speak('piper-quiet')
    const at22500 = await speak('piper-quiet-22500')
    expect(loads.find((l) => l.key === 'piper-quiet-22500')!.sampleRate).toBe(22_500)
    expect(loads.find((l) => l.key === 'piper-quiet')!.sampleRate).toBe(22_050)
    // The engine says each voice's rate, so the response resamples once, from it to what the request asks.
    expect(engine.sampleRateOf!('piper-quiet-22500')).toBe(22_500)
    expect(engine.sampleRateOf!('piper-quiet')).toBe(22_050)
    // The same model samples, as many of them, read at 22500 instead of 22050 Hz: 22050/22500 as long.
    expect(at22500.length).toBe(at22050.length)
  })

  it('every speaker of a speaker map is a voice named from the map, each speaking with its own id', async () => {
    const ids = engine.voices().map((v) => v.id)
    expect(ids).toEqual(expect.arrayContaining([`${TWO}-alba`, `${TWO}-northern`, 'piper-2spk-no-map-0', 'piper-2spk-no-map-1']))
    expect(same(await speak('piper-2spk-quiet-alba'), await speak('piper-2spk-quiet-northern'))).toBe(false)
    await speak('piper-2spk-no-map-1')
  })

  it('the broken voices answer not_ready naming the package and the reason, and are never loaded', async () => {
    for (const [voice, reason] of [['piper-no-espeak', /has no espeak\.voice/], ['piper-wrong-map', /phoneme_id_map uses ids up to 300/], ['piper-truncated', /truncated or damaged/], ['piper-external-lost', /which is missing/]] as const) {
      const stream = engine.synthesize({ text: TEXT, voice })
      const err = await stream[Symbol.asyncIterator]().next().then(() => undefined, (e: unknown) => e as { code: string; message: string })
      expect(err).toMatchObject({ code: 'not_ready' })
      expect(err!.message).toMatch(new RegExp(`model package ${voice} is broken: .*${reason.source}`))
    }
    expect(loads.filter((l) => /no-espeak|wrong-map|truncated|external-lost/.test(l.key))).toEqual([])
  })
})
