import { readFileSync } from 'node:fs'
import { cp, mkdtemp, rm, truncate, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { decode, encode } from '@msgpack/msgpack'
import sherpa from 'sherpa-onnx-node'
import WebSocket from 'ws'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { float32ToInt16 } from '../src/audio/signal.js'
import { readPcm16Wav } from '../src/audio/wav-header.js'
import { createNeuralAsrEngine } from '../src/engines/asr/neural/index.js'
import type { AsrEngine } from '../src/engines/asr/types.js'
import { isAbortError } from '../src/errors.js'
import { detectPackage } from '../src/models/detect.js'
import { unpackArchive } from '../src/models/unpack.js'
import { startTestServer, type TestServer } from './helpers/app.js'
import { buildModel, FLOAT } from './support/onnx/graph.js'

/**
 * A streaming Zipformer transducer built by k2-fsa/icefall's own recipe and export-onnx-streaming.py (random
 * weights, small widths: scripts/models/zipformer-streaming), heard live through Parla. Its transcript is
 * arbitrary; what Parla must deliver is exactly what sherpa-onnx's OnlineRecognizer decodes from the same
 * audio, chunk by chunk while it arrives, and in full at the end.
 */
const FIXTURES = fileURLToPath(new URL('./fixtures/models/zipformer-streaming/', import.meta.url))
const PACKAGE = 'sherpa-onnx-streaming-zipformer-parla-test'
const MODEL_FILES = { encoder: 'encoder-epoch-99-avg-1-chunk-16-left-128.onnx', decoder: 'decoder-epoch-99-avg-1-chunk-16-left-128.onnx', joiner: 'joiner-epoch-99-avg-1-chunk-16-left-128.onnx' }

const recording = (name: string): Int16Array => {
  const wav = readPcm16Wav(readFileSync(new URL(`./fixtures/real-speech/${name}`, import.meta.url)))
  if (typeof wav === 'string') throw new Error(wav)
  return float32ToInt16(wav.samples)
}
/** How a live turn hands audio to its decoder: its first second, then every 100 ms (services/asr/live/turn.ts). */
const turnBlocks = (pcm: Int16Array): Int16Array[] => {
  const blocks = [pcm.slice(0, 16_000)]
  for (let at = 16_000; at < pcm.length; at += 1600) blocks.push(pcm.slice(at, at + 1600))
  return blocks
}
const words = (text: string) => text.trim().split(/\s+/).filter(Boolean)

interface Online {
  createStream(): { acceptWaveform(w: { sampleRate: number; samples: Float32Array }): void; inputFinished(): void }
  isReady(s: unknown): boolean
  decode(s: unknown): void
  getResult(s: unknown): { text: string }
}
/**
 * The runtime used directly, as sherpa-onnx's streaming examples use it: each block accepted and decoded as far
 * as it goes, its text read; at the end 0.4 s of silence and `inputFinished`, decoded to the end.
 */
function direct(dir: string, blocks: readonly Int16Array[]): { partials: string[][]; final: string[] } {
  const runtime = sherpa as { OnlineRecognizer: new (config: unknown) => Online }
  const recognizer = new runtime.OnlineRecognizer({
    featConfig: { sampleRate: 16_000, featureDim: 80 },
    modelConfig: {
      transducer: { encoder: join(dir, MODEL_FILES.encoder), decoder: join(dir, MODEL_FILES.decoder), joiner: join(dir, MODEL_FILES.joiner) },
      tokens: join(dir, 'tokens.txt'), numThreads: 1, provider: 'cpu', debug: 0,
    },
    decodingMethod: 'greedy_search',
  })
  const stream = recognizer.createStream()
  const decodeReady = () => { while (recognizer.isReady(stream)) recognizer.decode(stream) }
  const partials: string[][] = []
  for (const block of blocks) {
    stream.acceptWaveform({ sampleRate: 16_000, samples: Float32Array.from(block, (v) => v / 32768) })
    decodeReady()
    partials.push(words(recognizer.getResult(stream).text))
  }
  stream.acceptWaveform({ sampleRate: 16_000, samples: new Float32Array(6400) })
  stream.inputFinished()
  decodeReady()
  return { partials, final: words(recognizer.getResult(stream).text) }
}

let modelsDir: string
let dir: string
let engine: AsrEngine
let s: TestServer
beforeAll(async () => {
  modelsDir = await mkdtemp(join(tmpdir(), 'parla-streaming-models-'))
  await unpackArchive(join(FIXTURES, `${PACKAGE}.tar.bz2`), modelsDir)
  dir = join(modelsDir, PACKAGE)
  engine = createNeuralAsrEngine((await detectPackage(modelsDir, PACKAGE))!, { processes: 1, threads: 1 })
  s = await startTestServer({ modelsDir, asrEngine: PACKAGE, neuralProcesses: 1, neuralThreads: 1 })
})
afterAll(async () => {
  await engine?.close()
  await s?.close()
  await rm(modelsDir, { recursive: true, force: true })
})

describe('streaming transducer packages (sherpa-onnx online models)', () => {
  it('are recognised by their encoder, decoder, joiner, tokens and streaming metadata as live ASR models', async () => {
    const pkg = (await detectPackage(modelsDir, PACKAGE))!
    expect(pkg).toMatchObject({ family: 'streaming-transducer', kind: 'asr', runnable: true, languages: ['en'], asr: { online: true, tokens: join(dir, 'tokens.txt') } })
    expect(pkg.untested).toBeUndefined()
    expect(pkg.asr!.model).toEqual({ transducer: { encoder: join(dir, MODEL_FILES.encoder), decoder: join(dir, MODEL_FILES.decoder), joiner: join(dir, MODEL_FILES.joiner) } })
  })

  it('take their languages from the package name; an offline transducer is listed not runnable, a damaged encoder broken', async () => {
    const variant = async (name: string) => {
      await cp(dir, join(modelsDir, name), { recursive: true })
      return join(modelsDir, name, MODEL_FILES.encoder)
    }
    await variant('sherpa-onnx-streaming-zipformer-bilingual-zh-en-2023-02-20')
    expect(await detectPackage(modelsDir, 'sherpa-onnx-streaming-zipformer-bilingual-zh-en-2023-02-20')).toMatchObject({ runnable: true, languages: ['zh', 'en'] })
    // An offline export (sherpa-onnx-zipformer-*): the same three files, an encoder without streaming metadata.
    const offline = await variant('sherpa-onnx-zipformer-en-2023-06-26')
    const io = (name: string) => ({ name, type: FLOAT, shape: ['N', 'T', 80] })
    await writeFile(offline, buildModel({ inputs: [io('x')], outputs: [io('encoder_out')], nodes: [{ op: 'Identity', inputs: ['x'], outputs: ['encoder_out'] }], metadata: { model_author: 'k2-fsa' } }))
    expect(await detectPackage(modelsDir, 'sherpa-onnx-zipformer-en-2023-06-26')).toMatchObject({ family: 'streaming-transducer', runnable: false, note: expect.stringMatching(/offline \(non-streaming\) transducer/) })
    const damaged = await variant('streaming-truncated')
    await truncate(damaged, 1000)
    expect(await detectPackage(modelsDir, 'streaming-truncated')).toMatchObject({ runnable: false, broken: true, note: expect.stringMatching(/^encoder-epoch-99-avg-1-chunk-16-left-128\.onnx .*download the package again$/) })
  })

  it('/v1/asr/live gives, partial by partial and in its final, exactly what the runtime decodes from the same audio', async () => {
    const pcm = recording('librivox-0870.wav')
    const expected = direct(dir, turnBlocks(pcm))
    // The model emits words while the audio is still coming, so the comparison is of a growing transcript.
    expect(expected.partials[Math.floor(expected.partials.length / 2)]!.length).toBeGreaterThan(0)
    expect(expected.final.length).toBeGreaterThan(expected.partials[0]!.length)

    const ws = new WebSocket(`${(await s.listen()).replace(/^http/, 'ws')}/v1/asr/live`, { headers: s.asAlice })
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject))
    const frames: Record<string, unknown>[] = []
    const finished = new Promise<void>((resolve) => ws.on('message', (d: Buffer) => {
      const frame = decode(d) as Record<string, unknown>
      frames.push(frame)
      if (frame.event === 'finish') resolve()
    }))
    ws.send(encode({ event: 'start', request: { sample_rate: 16_000, language: 'en', vad: false } }))
    for (let at = 0; at < pcm.length; at += 1600) ws.send(encode({ event: 'audio', audio: new Uint8Array(pcm.slice(at, at + 1600).buffer) }))
    ws.send(encode({ event: 'stop' }))
    await finished
    ws.close()

    expect(frames.at(-1)).toEqual({ event: 'finish', reason: 'stop' })
    const partials = frames.filter((f) => f.event === 'partial').map((f) => words(String(f.text)))
    expect(partials).toEqual(expected.partials)
    const final = frames.find((f) => f.event === 'final')!
    expect(words(String(final.text))).toEqual(expected.final)
    const timed = final.words as { word: string; start: number; end: number }[]
    expect(timed.map((w) => w.word)).toEqual(expected.final)
    for (const w of timed) expect(w.start).toBeLessThanOrEqual(w.end)
    expect(timed.at(-1)!.end).toBeLessThanOrEqual(pcm.length / 16_000)
  })

  it('a whole recording (the batch routes, when this is the configured engine) is the runtime\'s final result', async () => {
    const pcm = recording('goforward.wav')
    const expected = direct(dir, [pcm]).final
    const got = await engine.transcribe(Float32Array.from(pcm, (v) => v / 32768), { language: 'en' })
    expect(got.map((w) => w.word)).toEqual(expected)
  })

  it('an abort drops the utterance and frees the process; a language the model lacks is refused', async () => {
    const pcm = recording('goforward.wav')
    const [first, second, third] = turnBlocks(pcm)
    const ac = new AbortController()
    const { stream } = await engine.openStream!(first!, { language: 'en', signal: ac.signal })
    await stream.feed(second!)
    ac.abort()
    await expect(stream.feed(third!)).rejects.toSatisfy(isAbortError)
    // One process: the next utterance only starts if the dropped one gave it back.
    const again = await engine.openStream!(pcm.slice(), { language: 'en' })
    expect((await again.stream.end()).map((w) => w.word)).toEqual(direct(dir, [pcm]).final)
    await expect(engine.openStream!(new Int16Array(1600), { language: 'de' })).rejects.toThrow(/does not recognise language 'de'/)
  })
})
