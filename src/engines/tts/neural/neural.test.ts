import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { writePiperVoice } from '../../../../test/support/neural-models.js'
import { metadataBytes } from '../../../models/onnx-metadata.js'
import { runTtsEngineConformance } from '../../../../test/support/conformance/tts-engine.js'
import { collect, expectWords, HOSTILE_TEXT, LONG_TEXT, SENTENCE, SENTENCE_WORDS } from '../../../../test/support/tts-engine-kit.js'
import type { TtsEngine } from '../types.js'
import { createNeuralEngine, NEURAL_SAMPLE_RATE } from './index.js'

/** The neural engine on synthetic Piper voices through the real runtime: the engine contract, hostile input, broken models. */
let dir: string
let engine: TtsEngine

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'parla-neural-engine-'))
  await writePiperVoice(dir, 'en_US-tone-low', { sampleRate: 22_050 })
  await writePiperVoice(dir, 'en_US-broken-low')
  // A voice whose model file is a well-formed protobuf with no graph (nothing wrong to see without loading it):
  // the runtime refuses it (or its process dies); the engine must say so. Bytes that are not ONNX at all are
  // found at discovery (test/piper-discovery.test.ts).
  await writeFile(join(dir, 'en_US-broken-low', 'en_US-broken-low.onnx'), metadataBytes({ comment: 'no graph' }))
  engine = await createNeuralEngine({ neural: { modelsDir: dir, processes: 1, threads: 1 } })
})

afterAll(async () => {
  await engine?.close()
  await rm(dir, { recursive: true, force: true })
})

// The contract every engine keeps, on the synthetic voice (its own engine, one process), after the voices are written.
runTtsEngineConformance({
  name: 'neural (synthetic Piper voice)',
  create: () => createNeuralEngine({ neural: { modelsDir: dir, processes: 1, threads: 1 } }),
  voice: 'en_US-tone-low',
  skip: {
    pauses: 'the synthetic model makes one tone per phoneme id and no pauses at punctuation',
    edges: 'the synthetic model\'s last tone stops mid-cycle, and the engine streams pieces before it knows which is last',
  },
})

describe('neural engine', () => {
  it('speaks at its model\'s own rate (a 22.05 kHz voice says so, and is not resampled) with ordered word timings', async () => {
    const c = await collect(engine, { text: SENTENCE, voice: 'en_US-tone-low' })
    expect(engine.sampleRate).toBe(NEURAL_SAMPLE_RATE)
    expect(c.sampleRate).toBe(22_050)
    expect(c.duration).toBeGreaterThan(1)
    expectWords(SENTENCE, c, SENTENCE_WORDS)
  })

  it('streams a multi-sentence call sentence by sentence, marks the last audio, then sends the words', async () => {
    const chunks = []
    for await (const chunk of engine.synthesize({ text: LONG_TEXT, voice: 'en_US-tone-low' })) chunks.push(chunk)
    // Each sentence leaves as the runtime makes it; `final` follows the last one at once; the words come last.
    expect(chunks.map((c) => [c.samples.length > 0, c.words.length > 0, c.final === true])).toEqual([
      [true, false, false], [true, false, false], [true, false, false], [true, false, false], [false, false, true], [false, true, false],
    ])
  })

  it('hands its audio over (no copy needed) only when no words are asked for, as it keeps the audio to align them', async () => {
    const owned = async (words: boolean) => {
      const flags: boolean[] = []
      for await (const chunk of engine.synthesize({ text: LONG_TEXT, voice: 'en_US-tone-low' }, words ? {} : { words: false })) {
        if (chunk.samples.length > 0) flags.push(chunk.owned === true)
      }
      return flags
    }
    expect(await owned(false)).toEqual([true, true, true, true])
    expect(await owned(true)).toEqual([false, false, false, false])
  })

  it('survives hostile text', async () => {
    const c = await collect(engine, { text: HOSTILE_TEXT, voice: 'en_US-tone-low' })
    expect(c.samples.every((s) => Math.abs(s) <= 1)).toBe(true)
  })

  it('stops on abort', async () => {
    const controller = new AbortController()
    const it = engine.synthesize({ text: LONG_TEXT, voice: 'en_US-tone-low' }, { signal: controller.signal })[Symbol.asyncIterator]()
    expect((await it.next()).done).toBe(false)
    controller.abort()
    await expect((async () => { for (;;) if ((await it.next()).done) return })()).rejects.toMatchObject({ name: 'AbortError' })
    // The process is free again.
    expect((await collect(engine, { text: 'Hello.', voice: 'en_US-tone-low' })).duration).toBeGreaterThan(0)
  })

  it('is saturated while its only process works, and free once the consumer stops', async () => {
    const it = engine.synthesize({ text: LONG_TEXT, voice: 'en_US-tone-low' })[Symbol.asyncIterator]()
    expect((await it.next()).done).toBe(false)
    expect(engine.saturated!()).toBe(true)
    await it.return!(undefined)
    expect(engine.saturated!()).toBe(false)
  })

  it('rejects unknown voices and ignores empty text', async () => {
    await expect(collect(engine, { text: 'Hello.', voice: 'nope' })).rejects.toMatchObject({ code: 'bad_request' })
    expect((await collect(engine, { text: '   ', voice: 'en_US-tone-low' })).chunks).toBe(0)
  })

  it('a model the runtime cannot load fails its calls with engine_failed, and the others keep working', async () => {
    // The runtime's refusal is the package's, not the request's or the server's: a 409 naming it, every time.
    for (let i = 0; i < 2; i++) {
      await expect(collect(engine, { text: 'Hello.', voice: 'en_US-broken-low' })).rejects.toMatchObject({ code: 'not_ready', message: expect.stringMatching(/model package en_US-broken-low is broken, the runtime refused it: ./) })
    }
    expect((await collect(engine, { text: 'Hello again.', voice: 'en_US-tone-low' })).duration).toBeGreaterThan(0)
  })
})
