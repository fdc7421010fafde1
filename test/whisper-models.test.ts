import { encode } from '@msgpack/msgpack'
import { execFile } from 'node:child_process'
import { copyFile, cp, mkdtemp, readdir, rm, stat, truncate, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createResampler } from '../src/audio/resample.js'
import { detectSpeech } from '../src/asr/vad.js'
import { createNeuralAsrEngine } from '../src/engines/asr/neural/index.js'
import { detectPackage } from '../src/models/detect.js'
import { addModel } from '../src/models/store.js'
import { unpackArchive } from '../src/models/unpack.js'
import { startTestServer, type TestServer } from './helpers/app.js'
import { SENTENCES, speakAll, toWav } from './support/asr-speech.js'

/**
 * Whisper packages built from openai/whisper's model code and exported by sherpa-onnx's own export-onnx.py
 * (scripts/models/whisper/build.sh; random weights with a planted sentence and language) through the runtime
 * and every ASR surface: what they say is known, so language, text and times can be asserted.
 */
const FIXTURES = fileURLToPath(new URL('./fixtures/models/whisper/', import.meta.url))
const IT = 'Ho visto i bambini e poi'
const ZH = '你好。我们的语音识别服务器'
const EN = 'Hello world, this is a test.'
const run = promisify(execFile)
const parla = fileURLToPath(new URL('../bin/parla.js', import.meta.url))

let modelsDir: string
let s: TestServer
let speech15: Float32Array
let speech65: Float32Array
/** The first sentence of `speech15` and the pause after it: one utterance. */
let clip: Float32Array

/** Festival sentences at 16 kHz with 1.2 s of silence between them, until `seconds` are filled. */
async function recording(seconds: number): Promise<Float32Array> {
  const sentences = await speakAll(SENTENCES.slice(0, 14))
  const parts: Float32Array[] = []
  let length = 0
  for (let i = 0; length < seconds * 16_000; i++) {
    const s = sentences[i % sentences.length]!
    const r = createResampler(s.sampleRate, 16_000)
    const pcm = Float32Array.from([...r.process(s.samples), ...r.flush()])
    const gap = new Float32Array(Math.round(1.2 * 16_000))
    parts.push(pcm, gap)
    length += pcm.length + gap.length
  }
  const out = new Float32Array(seconds * 16_000)
  let at = 0
  for (const p of parts) {
    out.set(p.subarray(0, Math.max(0, out.length - at)), at)
    at += p.length
    if (at >= out.length) break
  }
  return out
}

beforeAll(async () => {
  modelsDir = await mkdtemp(join(tmpdir(), 'parla-whisper-models-'))
  for (const f of await readdir(FIXTURES)) if (f.endsWith('.tar.bz2')) await unpackArchive(join(FIXTURES, f), modelsDir)
  ;[speech15, speech65] = await Promise.all([recording(15), recording(65)])
  const first = (await detectSpeech(speech15, { sampleRate: 16_000, maxSeconds: 28 }))[0]!
  clip = speech15.subarray(0, Math.round((first.end + 0.3) * 16_000))
  s = await startTestServer({ modelsDir, asrEngine: 'en=sherpa-onnx-whisper-tiny.en *=sherpa-onnx-whisper-tiny-it', neuralProcesses: 1 })
}, 120_000)

afterAll(async () => {
  await s?.close()
  await rm(modelsDir, { recursive: true, force: true })
})

const wav = (samples: Float32Array) => toWav(samples, 16_000)
const asr = (server: TestServer, body: Record<string, unknown>) =>
  server.app.inject({ method: 'POST', url: '/v1/asr', headers: { ...server.asAlice, 'content-type': 'application/msgpack' }, payload: Buffer.from(encode(body)) })

describe('Whisper packages built from openai/whisper and sherpa-onnx', () => {
  it('discovery reads the languages from the model metadata (99 codes, no yue) and English for .en', async () => {
    const it99 = (await detectPackage(modelsDir, 'sherpa-onnx-whisper-tiny-it'))!
    expect(it99).toMatchObject({ family: 'whisper', kind: 'asr', runnable: true, multiLanguage: true })
    expect(it99.languages).toHaveLength(99)
    expect(it99.languages.slice(0, 3)).toEqual(['en', 'zh', 'de'])
    expect(it99.languages).not.toContain('yue')
    expect((await detectPackage(modelsDir, 'sherpa-onnx-whisper-tiny.en'))!.languages).toEqual(['en'])
  })

  it('no language: the * route detects, answers the model\'s own text untouched and reports the language heard', async () => {
    for (const language of [undefined, 'auto']) {
      const res = await asr(s, { audio: wav(clip), ...(language && { language }) })
      expect(res.statusCode, res.body).toBe(200)
      expect(res.json()).toMatchObject({ text: IT, language: 'it' })
    }
    const en = await asr(s, { audio: wav(clip), language: 'en' })
    expect(en.json()).toMatchObject({ text: EN, language: 'en' })
  })

  it('a language the model lacks is refused with 422 naming the model\'s codes', async () => {
    const res = await asr(s, { audio: wav(clip), language: 'yue' })
    expect(res.statusCode).toBe(422)
    expect(res.body).toMatch(/'yue' is not supported; supported: en, zh, de, es/)
  })

  it('the requested language reaches the model; with none, its detected language is reported', async () => {
    const engine = createNeuralAsrEngine((await detectPackage(modelsDir, 'sherpa-onnx-whisper-tiny-it'))!, { processes: 1, threads: 1 })
    try {
      const audio = clip
      expect((await engine.transcribe(audio, { language: 'auto' })).language).toBe('it')
      expect((await engine.transcribe(audio, { language: 'de' })).language).toBe('de')
      expect((await engine.transcribe(audio, { language: 'auto' })).language).toBe('it')
      await expect(engine.transcribe(audio, { language: 'yue' })).rejects.toMatchObject({ code: 'bad_request' })
    } finally {
      await engine.close()
    }
  })

  it('Chinese characters split across byte tokens come back whole', async () => {
    const engine = createNeuralAsrEngine((await detectPackage(modelsDir, 'sherpa-onnx-whisper-tiny-zh'))!, { processes: 1, threads: 1 })
    try {
      const r = await engine.transcribe(clip, { language: 'auto' })
      expect(r).toMatchObject({ text: ZH, language: 'zh' })
      expect(r.map((w) => w.word).join('')).toBe(ZH)
    } finally {
      await engine.close()
    }
  })

  for (const seconds of [15, 65]) {
    it(`${seconds} s: segments and words lie inside the speech the VAD found, none is a fixed second or at 0`, async () => {
      const audio = seconds === 15 ? speech15 : speech65
      const spans = await detectSpeech(audio, { sampleRate: 16_000, maxSeconds: 28 })
      const inside = (x: { start: number; end: number }) => spans.some((p) => x.start >= p.start - 0.011 && x.end <= p.end + 0.011 && x.end > x.start)
      const res = await asr(s, { audio: wav(audio), ignore_timestamps: false })
      expect(res.statusCode, res.body).toBe(200)
      const body = res.json() as { segments: { text: string; start: number; end: number }[] }
      expect(body.segments).toHaveLength(spans.length)
      for (const seg of body.segments) {
        expect(seg.text).toBe(IT)
        expect(inside(seg), JSON.stringify({ seg, spans })).toBe(true)
      }
      expect(body.segments.some((x) => Math.abs(x.end - x.start - 1) > 0.05)).toBe(true)
      const form = new FormData()
      form.set('file', new Blob([wav(audio)], { type: 'audio/wav' }), 'speech.wav')
      form.set('response_format', 'verbose_json')
      form.append('timestamp_granularities[]', 'word')
      form.append('timestamp_granularities[]', 'segment')
      const oa = await openai(form)
      expect(oa.statusCode, oa.body).toBe(200)
      const verbose = oa.json() as { language: string; words: { word: string; start: number; end: number }[]; segments: { start: number; end: number }[] }
      expect(verbose.language).toBe('italian')
      expect(verbose.words.length).toBe(6 * spans.length)
      for (const w of verbose.words) expect(inside(w), JSON.stringify(w)).toBe(true)
      for (const seg of verbose.segments) expect(inside(seg)).toBe(true)
    }, 120_000)
  }

  it('OpenAI transcriptions: json, srt and vtt cues on the speech', async () => {
    const form = new FormData()
    form.set('file', new Blob([wav(speech15)], { type: 'audio/wav' }), 'speech.wav')
    form.set('response_format', 'json')
    expect((await openai(form)).json()).toMatchObject({ text: expect.stringContaining(IT) })
    form.set('response_format', 'srt')
    const srt = (await openai(form)).body
    const spans = await detectSpeech(speech15, { sampleRate: 16_000, maxSeconds: 28 })
    const cues = [...srt.matchAll(/(\d\d):(\d\d):(\d\d),(\d{3}) --> (\d\d):(\d\d):(\d\d),(\d{3})\n(.+)/g)]
    expect(cues).toHaveLength(spans.length)
    for (const c of cues) {
      const t = (h: string, m: string, sec: string, ms: string) => Number(h) * 3600 + Number(m) * 60 + Number(sec) + Number(ms) / 1000
      const start = t(c[1]!, c[2]!, c[3]!, c[4]!)
      const end = t(c[5]!, c[6]!, c[7]!, c[8]!)
      expect(spans.some((p) => start >= p.start - 0.011 && end <= p.end + 0.011)).toBe(true)
      expect(c[9]).toBe(IT)
    }
    form.set('response_format', 'vtt')
    const vtt = (await openai(form)).body
    expect([...vtt.matchAll(/(\d\d:)?\d\d:\d\d\.\d{3} --> (\d\d:)?\d\d:\d\d\.\d{3}\n(.+)/g)].map((c) => c[3])).toEqual(cues.map(() => IT))
  })

  it('an encoder and decoder that do not match, and a truncated decoder, are listed broken with the reason', async () => {
    await cp(join(modelsDir, 'sherpa-onnx-whisper-tiny-it'), join(modelsDir, 'whisper-mismatched'), { recursive: true })
    await copyFile(join(FIXTURES, 'wide-tiny-encoder.onnx'), join(modelsDir, 'whisper-mismatched', 'tiny-encoder.onnx'))
    await cp(join(modelsDir, 'sherpa-onnx-whisper-tiny-it'), join(modelsDir, 'whisper-truncated'), { recursive: true })
    const decoder = join(modelsDir, 'whisper-truncated', 'tiny-decoder.onnx')
    await truncate(decoder, Math.floor((await stat(decoder)).size / 2))
    expect(await detectPackage(modelsDir, 'whisper-mismatched')).toMatchObject({ runnable: false, broken: true,
      note: "tiny-decoder.onnx does not belong to tiny-encoder.onnx: the decoder's attention width is 4, the encoder's n_text_state is 6; use the encoder and decoder of one release" })
    expect(await detectPackage(modelsDir, 'whisper-truncated')).toMatchObject({ runnable: false, broken: true, note: 'tiny-decoder.onnx is not an ONNX model (truncated); download the package again' })
    const { stdout } = await run(process.execPath, [parla, 'models', 'list', '--models-dir', modelsDir, '--data-dir', join(modelsDir, '.data')])
    expect(stdout).toMatch(/whisper-mismatched\twhisper\tasr\t.*broken: tiny-decoder\.onnx does not belong/)
  })

  it('parla transcribe on the local data dir uses the configured asrEngine', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'parla-whisper-cli-'))
    try {
      await writeFile(join(dir, 'clip.wav'), wav(clip))
      await writeFile(join(dir, 'parla.config.json'), JSON.stringify({ asrEngine: 'sherpa-onnx-whisper-tiny-zh', modelsDir, dataDir: join(dir, 'data') }))
      const { stdout } = await run(process.execPath, [parla, 'transcribe', join(dir, 'clip.wav'), '--json', '--config', join(dir, 'parla.config.json')])
      expect(JSON.parse(stdout)).toMatchObject({ text: ZH, language: 'zh', segments: [{ text: ZH }] })
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  }, 120_000)

  it('models add takes a package folder and a release .tar.bz2', async () => {
    const other = await mkdtemp(join(tmpdir(), 'parla-whisper-add-'))
    try {
      expect(await addModel(other, join(modelsDir, 'sherpa-onnx-whisper-tiny-zh'))).toMatchObject({ id: 'sherpa-onnx-whisper-tiny-zh', runnable: true })
      const added = await run(process.execPath, [parla, 'models', 'add', join(FIXTURES, 'sherpa-onnx-whisper-tiny.en.tar.bz2'), '--models-dir', other, '--data-dir', join(other, '.data')])
      expect(added.stdout).toMatch(/installed sherpa-onnx-whisper-tiny\.en \(whisper asr, en\)/)
      const server = await startTestServer({ modelsDir: other, asrEngine: 'sherpa-onnx-whisper-tiny-zh', neuralProcesses: 1 })
      try {
        const res = await asr(server, { audio: wav(clip) })
        expect(res.json()).toMatchObject({ text: ZH, language: 'zh' })
      } finally {
        await server.close()
      }
    } finally {
      await rm(other, { recursive: true, force: true })
    }
  })
})

function openai(form: FormData) {
  const req = new Request('http://x/', { method: 'POST', body: form })
  return req.arrayBuffer().then((body) => s.app.inject({
    method: 'POST', url: '/v1/audio/transcriptions',
    headers: { ...s.asAlice, 'content-type': req.headers.get('content-type')! },
    payload: Buffer.from(body),
  }))
}
