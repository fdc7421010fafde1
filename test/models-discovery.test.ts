import { mkdtemp, readdir, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { discoverModels } from '../src/models/discover.js'
import { parla } from './helpers/cli.js'
import { writeGgml, writeKokoroLayout, writeMoonshineLayout, writeNemoCtc, writePiperVoice, writeSherpaVits, writeWhisperLayout, writeZipVoiceLayout } from './support/neural-models.js'

/** Discovery recognises each family in the layout its project publishes (synthetic files, real names and metadata). */
let dir: string

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'parla-discovery-'))
  await writePiperVoice(dir, 'de_DE-thorsten-low', { language: 'de_DE', sampleRate: 22_050 })
  await writePiperVoice(dir, 'en_US-libritts_r-medium', { speakers: ['p3922', 'p4014', 'p5022'] })
  await writeSherpaVits(dir, 'vits-piper-en_US-amy-low')
  await writeKokoroLayout(dir, 'kokoro-en-v0_19', true)
  await writeZipVoiceLayout(dir, 'sherpa-onnx-zipvoice-distill-zh-en-emilia')
  await writeWhisperLayout(dir, 'sherpa-onnx-whisper-tiny')
  await writeWhisperLayout(dir, 'sherpa-onnx-whisper-tiny.en', false)
  await writeMoonshineLayout(dir, 'sherpa-onnx-moonshine-tiny-en-int8')
  await writeNemoCtc(dir, 'sherpa-onnx-nemo-ctc-en-tone')
  await writeGgml(dir, 'ggml-base.en.bin')
  await writeGgml(dir, 'notes.bin')
})

afterAll(() => rm(dir, { recursive: true, force: true }))

describe('model discovery', () => {
  it('recognises every published layout with its languages and speakers', async () => {
    const { packages, problems } = await discoverModels(dir)
    expect(problems).toEqual([])
    const summary = Object.fromEntries(packages.map((p) => [p.id, { family: p.family, kind: p.kind, languages: p.languages, speakers: p.speakers.length, runnable: p.runnable }]))
    expect(summary).toEqual({
      'de_DE-thorsten-low': { family: 'piper', kind: 'tts', languages: ['de-de'], speakers: 1, runnable: true },
      'en_US-libritts_r-medium': { family: 'piper', kind: 'tts', languages: ['en-us'], speakers: 3, runnable: true },
      'vits-piper-en_US-amy-low': { family: 'vits', kind: 'tts', languages: ['en'], speakers: 1, runnable: true },
      'kokoro-en-v0_19': { family: 'kokoro', kind: 'tts', languages: ['en'], speakers: 2, runnable: true },
      'sherpa-onnx-zipvoice-distill-zh-en-emilia': { family: 'zipvoice', kind: 'tts', languages: ['en', 'zh'], speakers: 1, runnable: true },
      'sherpa-onnx-whisper-tiny': { family: 'whisper', kind: 'asr', languages: ['en', 'zh', 'de'], speakers: 0, runnable: true },
      'sherpa-onnx-whisper-tiny.en': { family: 'whisper', kind: 'asr', languages: ['en'], speakers: 0, runnable: true },
      'sherpa-onnx-moonshine-tiny-en-int8': { family: 'moonshine', kind: 'asr', languages: ['en'], speakers: 0, runnable: true },
      'sherpa-onnx-nemo-ctc-en-tone': { family: 'nemo-ctc', kind: 'asr', languages: ['en'], speakers: 0, runnable: true },
      'ggml-base.en.bin': { family: 'whisper-ggml', kind: 'asr', languages: ['en'], speakers: 0, runnable: false },
    })
    expect(packages.find((p) => p.id === 'kokoro-en-v0_19')!.speakers).toEqual(['af_heart', 'am_adam'])
    expect(packages.find((p) => p.family === 'zipvoice')!.clones).toBe(true)
  })

  it('`parla models list` says which runnable families were tested only on synthetic graphs, and why', async () => {
    const other = await mkdtemp(join(tmpdir(), 'parla-discovery-add-'))
    try {
      const list = async (d: string) => (await parla(['models', 'list', '--models-dir', d, '--data-dir', join(d, '.data')])).stdout.toString()
      const out = await list(dir)
      expect(out).toMatch(/sherpa-onnx-moonshine-tiny-en-int8\tmoonshine\tasr\ten\tasr:\S+\tunchecked, untested: usefulsensors\/moonshine exports its ONNX files with Keras 3 on TensorFlow and tf2onnx, which Debian lacks/)
      expect(out).toMatch(/sherpa-onnx-nemo-ctc-en-tone\tnemo-ctc\tasr\ten\tasr:\S+\tunchecked, untested: NeMo CTC models are exported by the NeMo toolkit/)
      // Families tested on models built by their own code say nothing more (never checked here: "unchecked").
      expect(out).toMatch(/vits-piper-en_US-amy-low\tvits\ttts\ten\t\S+\tunchecked\n/)
      expect(out).toMatch(/sherpa-onnx-zipvoice-distill-zh-en-emilia\tzipvoice\ttts\ten,zh\t\S+\tunchecked\n/)
      const added = await parla(['models', 'add', join(dir, 'sherpa-onnx-moonshine-tiny-en-int8'), '--models-dir', other, '--data-dir', join(other, '.data')])
      expect(added.stdout.toString()).toMatch(/\nuntested: usefulsensors\/moonshine exports/)
    } finally {
      await rm(other, { recursive: true, force: true })
    }
  })

  it('a Piper voice is prepared for the runtime in the cache, leaving the operator\'s files alone', async () => {
    const { packages } = await discoverModels(dir)
    const piper = packages.find((p) => p.id === 'de_DE-thorsten-low')!
    const before = await stat(join(dir, piper.id, `${piper.id}.onnx`))
    const config = await piper.prepare!()
    expect(config.vits!.model.startsWith(join(dir, '.parla-cache'))).toBe(true)
    expect((await readdir(config.vits!.dataDir!)).includes('de_dict')).toBe(true)
    const after = await stat(join(dir, piper.id, `${piper.id}.onnx`))
    expect(after.size).toBe(before.size)
    expect((await stat(config.vits!.model)).size).toBeGreaterThan(before.size)
  })

  it('a broken package is reported without hiding the others', async () => {
    const broken = await mkdtemp(join(tmpdir(), 'parla-discovery-broken-'))
    try {
      await writePiperVoice(broken, 'en_US-good-low')
      await writePiperVoice(broken, 'en_US-bad-low')
      const { writeFile } = await import('node:fs/promises')
      await writeFile(join(broken, 'en_US-bad-low', 'en_US-bad-low.onnx.json'), '{"audio": {}}')
      const { packages, problems } = await discoverModels(broken)
      expect(packages.map((p) => p.id)).toEqual(['en_US-good-low'])
      expect(problems).toEqual([{ id: 'en_US-bad-low', message: expect.stringMatching(/not a Piper voice config/) }])
    } finally {
      await rm(broken, { recursive: true, force: true })
    }
  })
})
