import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readPcm16Wav } from '../../../audio/wav-header.js'
import { float32ToInt16 } from '../../../audio/signal.js'
import { wer } from '../../../asr/wer.js'
import { isAbortError } from '../../../errors.js'
import { PocketsphinxDecoder } from './decoder.js'
import { lmDictionary } from './dictionary.js'
import { createPocketsphinxEngine, type PocketsphinxEngine } from './index.js'
import { DEFAULT_PRESET, decoderArgs, MODEL_DIR } from './settings.js'

const FIXTURES = new URL('../../../../test/fixtures/real-speech/', import.meta.url)
const TRUTH = 'and mister john dashwood had then leisure to consider how much there might be prudently in his power to do for them'

function recording(name: string): Int16Array {
  const wav = readPcm16Wav(readFileSync(new URL(name, FIXTURES)))
  if (typeof wav === 'string') throw new Error(wav)
  return float32ToInt16(wav.samples)
}

/** Splits into 100 ms blocks, each its own buffer (feeding transfers it). */
const blocks = (pcm: Int16Array, size = 1600) =>
  Array.from({ length: Math.ceil(pcm.length / size) }, (_, i) => pcm.slice(i * size, (i + 1) * size))

let engine: PocketsphinxEngine
beforeAll(async () => {
  engine = createPocketsphinxEngine({ workers: 1 })
  await engine.ready()
})
afterAll(async () => {
  await engine.close()
})

describe('pocketsphinx live utterances', () => {
  it('grows its hypothesis as audio arrives and ends with the words and times of the batch decode of the same audio', async () => {
    const pcm = recording('librivox-0870.wav')
    const [first, ...rest] = blocks(pcm)
    const { stream } = await engine.openStream(first!, { language: 'en' })
    const sizes: number[] = []
    for (const block of rest) sizes.push((await stream.feed(block)).length)
    const words = await stream.end()
    // Words appear while the audio is still coming: half-way through, some are already recognised.
    expect(sizes[Math.floor(sizes.length / 2)]).toBeGreaterThan(3)
    expect(sizes.at(-1)).toBeGreaterThan(10)
    // The live pass normalised the channel on its first 100 ms; the end normalises on the whole utterance,
    // as the batch route does, so the final is the batch decode to the word, time and confidence.
    expect(words).toEqual([...(await engine.transcribe(pcm, { language: 'en' }))])
    expect(wer(TRUTH, words.map((w) => w.word).join(' ')).wer).toBeLessThan(0.45)
    for (let i = 1; i < words.length; i++) expect(words[i]!.start).toBeGreaterThanOrEqual(words[i - 1]!.end - 0.02)
    expect(words.at(-1)!.end).toBeLessThanOrEqual(pcm.length / 16000 + 0.01)
  })

  it('an utterance started from an earlier channel, or given whole at its start, also ends as the batch decode', async () => {
    const pcm = recording('goforward.wav')
    const channel = recording('librivox-0880.wav')
    const [first, ...rest] = blocks(pcm)
    const { stream } = await engine.openStream(first!, { language: 'en', channel })
    for (const block of rest) await stream.feed(block)
    // The stream holds the one worker: the batch decode comes after its end.
    const live = await stream.end()
    const batch = [...(await engine.transcribe(pcm, { language: 'en' }))]
    expect(live).toEqual(batch)
    const whole = await engine.openStream(pcm.slice(), { language: 'en' })
    expect(await whole.stream.end()).toEqual(batch)
  })

  it('holds its worker until it ends: a batch job waits, then runs', async () => {
    const pcm = recording('goforward.wav')
    const [first, ...rest] = blocks(pcm)
    const { stream } = await engine.openStream(first!, { language: 'en' })
    let batchDone = false
    const batch = engine.transcribe(pcm, { language: 'en' }).then((w) => ((batchDone = true), w))
    for (const block of rest) await stream.feed(block)
    expect(batchDone).toBe(false)
    const live = await stream.end()
    expect(live.map((w) => w.word).join(' ')).toContain('forward')
    expect((await batch).map((w) => w.word).join(' ')).toContain('forward')
  })

  it('an abort drops the utterance, rejects what is awaited and frees the worker', async () => {
    const pcm = recording('goforward.wav')
    const [first, ...rest] = blocks(pcm)
    const ac = new AbortController()
    const { stream } = await engine.openStream(first!, { language: 'en', signal: ac.signal })
    await stream.feed(rest[0]!)
    ac.abort()
    await expect(stream.feed(rest[1]!)).rejects.toSatisfy(isAbortError)
    await expect(stream.end()).rejects.toBeDefined()
    const again = await engine.openStream(pcm.slice(), { language: 'en' })
    expect((await again.stream.end()).map((w) => w.word).join(' ')).toContain('forward')
  })

  it('refuses a language it does not speak', async () => {
    await expect(engine.openStream(new Int16Array(1600), { language: 'de' })).rejects.toThrow(/not supported/)
  })
})

describe('pocketsphinx decode so far (the speculative final)', () => {
  let decoder: PocketsphinxDecoder
  const BLOCK = 4096
  const never = () => false
  beforeAll(() => {
    decoder = new PocketsphinxDecoder(decoderArgs(DEFAULT_PRESET, MODEL_DIR, undefined, lmDictionary(MODEL_DIR)))
  })
  afterAll(() => decoder.free())

  const batch = (pcm: Int16Array) => decoder.decode(pcm, BLOCK, never).words
  const startWith = (pcm: Int16Array) => {
    const [first, ...rest] = blocks(pcm)
    decoder.startStream(first!)
    decoder.feed(first!, BLOCK)
    return rest
  }

  it('with nothing fed after it, the end answers its words without decoding again: the batch decode of the audio', () => {
    const pcm = recording('librivox-0870.wav')
    for (const block of startWith(pcm)) decoder.feed(block, BLOCK)
    const before = decoder.decodes
    const soFar = decoder.decodeSoFar(BLOCK, never)
    expect(decoder.decodes).toBe(before + 1)
    const end = decoder.endStream(BLOCK, never)
    expect(decoder.decodes).toBe(before + 1)
    expect(soFar.stopped).toBe(false)
    expect(end.words).toEqual(soFar.words)
    expect(end.words).toEqual(batch(pcm))
  })

  it('when speech goes on after it, partials continue from its words and the end decodes all the audio, as without it', () => {
    const pcm = recording('librivox-0870.wav')
    const rest = startWith(pcm)
    const half = Math.floor(rest.length / 2)
    for (const block of rest.slice(0, half)) decoder.feed(block, BLOCK)
    const soFar = decoder.decodeSoFar(BLOCK, never).words.map((w) => w.word)
    const partials = rest.slice(half).map((block) => decoder.feed(block, BLOCK))
    expect(partials[0]!.slice(0, soFar.length)).toEqual(soFar)
    expect(partials.at(-1)!.length).toBeGreaterThan(soFar.length)
    const before = decoder.decodes
    const end = decoder.endStream(BLOCK, never)
    expect(decoder.decodes).toBe(before + 1)
    expect(end.words).toEqual(batch(pcm))
  })

  it('stopped part-way, it leaves the utterance going: more audio and the end still give the batch decode', () => {
    const pcm = recording('librivox-0870.wav')
    const rest = startWith(pcm)
    const half = Math.floor(rest.length / 2)
    for (const block of rest.slice(0, half)) decoder.feed(block, BLOCK)
    let asked = 0
    const stopped = decoder.decodeSoFar(BLOCK, () => ++asked > 2)
    expect(stopped).toEqual({ words: [], stopped: true })
    for (const block of rest.slice(half)) decoder.feed(block, BLOCK)
    expect(decoder.endStream(BLOCK, never).words).toEqual(batch(pcm))
  })
})

describe('pocketsphinx live utterances decoded so far through the engine', () => {
  it('answers the words the end then gives; an aborted one rejects at once and the utterance goes on', async () => {
    const pcm = recording('librivox-0870.wav')
    const [first, ...rest] = blocks(pcm)
    const { stream } = await engine.openStream(first!, { language: 'en' })
    const half = Math.floor(rest.length / 2)
    for (const block of rest.slice(0, half)) await stream.feed(block)
    const dropped = new AbortController()
    const aborted = stream.decodeSoFar!(dropped.signal)
    dropped.abort()
    await expect(aborted).rejects.toSatisfy(isAbortError)
    for (const block of rest.slice(half)) await stream.feed(block)
    const soFar = await stream.decodeSoFar!(new AbortController().signal)
    const words = await stream.end()
    expect(words).toEqual(soFar)
    expect(words).toEqual([...(await engine.transcribe(pcm, { language: 'en' }))])
  })
})
