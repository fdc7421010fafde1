import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readPcm16Wav } from '../../../audio/wav-header.js'
import { float32ToInt16 } from '../../../audio/signal.js'
import { corpusWer, wer } from '../../../asr/wer.js'
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

/** Two recordings with 300 ms of silence between: the pause where a speculative final is decoded. */
function withPause(): { pcm: Int16Array; blocksToPause: number; truth: string } {
  const [a, b] = [recording('librivox-0880.wav'), recording('cards-005.wav')]
  const pcm = new Int16Array(a.length + 4800 + b.length)
  pcm.set(a)
  pcm.set(b, a.length + 4800)
  const truth = 'he was not an ill disposed young man eight of spades four of clubs seven of hearts'
  return { pcm, blocksToPause: Math.ceil((a.length + 1600) / 1600), truth }
}

let engine: PocketsphinxEngine
beforeAll(async () => {
  engine = createPocketsphinxEngine({ workers: 1 })
  await engine.ready()
})
afterAll(async () => {
  await engine.close()
})

describe('pocketsphinx live utterances', () => {
  it('grows its hypothesis as audio arrives and ends with its words, timed in the audio', async () => {
    const pcm = recording('librivox-0870.wav')
    const [first, ...rest] = blocks(pcm)
    const { stream } = await engine.openStream(first!, { language: 'en' })
    const sizes: number[] = []
    for (const block of rest) sizes.push((await stream.feed(block)).length)
    const words = await stream.end()
    // Words appear while the audio is still coming: half-way through, some are already recognised.
    expect(sizes[Math.floor(sizes.length / 2)]).toBeGreaterThan(3)
    expect(sizes.at(-1)).toBeGreaterThan(10)
    expect(wer(TRUTH, words.map((w) => w.word).join(' ')).wer).toBeLessThan(0.45)
    for (let i = 1; i < words.length; i++) expect(words[i]!.start).toBeGreaterThanOrEqual(words[i - 1]!.end - 0.02)
    expect(words.at(-1)!.end).toBeLessThanOrEqual(pcm.length / 16000 + 0.01)
  })

  it('a turn under 2 s started from an earlier channel, or given whole at its start, ends as the batch decode', async () => {
    const pcm = recording('cards-003.wav')
    const channel = recording('librivox-0880.wav')
    const [first, ...rest] = blocks(pcm)
    const { stream } = await engine.openStream(first!, { language: 'en', channel })
    for (const block of rest) await stream.feed(block)
    // The stream holds the one worker: the batch decode comes after its end.
    const live = await stream.end()
    const batch = [...(await engine.transcribe(pcm, { language: 'en' }))]
    expect(live.length).toBeGreaterThan(0)
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

  it('begun on their first second, the real recordings end as accurate as the batch decode, those over 2 s without decoding again', () => {
    const clips = readFileSync(new URL('transcripts.tsv', FIXTURES), 'utf8').trim().split('\n').map((line) => line.split('\t'))
    const live: { reference: string; hypothesis: string }[] = []
    const whole: { reference: string; hypothesis: string }[] = []
    for (const [file, reference] of clips) {
      const pcm = recording(file!)
      decoder.startStream(pcm.subarray(0, 16_000))
      decoder.feed(pcm.slice(0, 16_000), BLOCK)
      for (const block of blocks(pcm.subarray(16_000))) decoder.feed(block, BLOCK)
      const before = decoder.decodes
      const words = decoder.endStream(BLOCK, never).words
      // Under 2 s, the end decodes the recording again with its whole mean; over, the live pass is the final.
      expect(decoder.decodes - before, file).toBe(pcm.length < 32_000 ? 1 : 0)
      live.push({ reference: reference!, hypothesis: words.map((w) => w.word).join(' ') })
      whole.push({ reference: reference!, hypothesis: batch(pcm).map((w) => w.word).join(' ') })
    }
    // The mean measured again at 2 s is what makes the live pass good enough: with its first second's mean
    // throughout, the set measured 36.4 % against the batch decode's 30.5 %.
    expect(corpusWer(live).wer).toBeLessThanOrEqual(corpusWer(whole).wer + 0.02)
  })

  it('past 2 s, it answers the live pass without a second decode, and the end answers the same words', () => {
    const pcm = recording('librivox-0870.wav')
    for (const block of startWith(pcm)) decoder.feed(block, BLOCK)
    const before = decoder.decodes
    const soFar = decoder.decodeSoFar(BLOCK, never)
    const end = decoder.endStream(BLOCK, never)
    expect(decoder.decodes).toBe(before)
    expect(soFar.stopped).toBe(false)
    expect(wer(TRUTH, soFar.words.map((w) => w.word).join(' ')).wer).toBeLessThan(0.45)
    expect(end.words).toEqual(soFar.words)
  })

  it('under 2 s, it decodes the audio whole once: the batch decode, which the end then answers', () => {
    const pcm = recording('cards-003.wav')
    for (const block of startWith(pcm)) decoder.feed(block, BLOCK)
    const before = decoder.decodes
    const soFar = decoder.decodeSoFar(BLOCK, never)
    const end = decoder.endStream(BLOCK, never)
    expect(decoder.decodes).toBe(before + 1)
    expect(end.words).toEqual(soFar.words)
    expect(end.words).toEqual(batch(pcm))
  })

  it('when speech goes on after it, partials and the end continue from its words, timed in the whole utterance', () => {
    const { pcm, blocksToPause, truth } = withPause()
    const rest = startWith(pcm)
    for (const block of rest.slice(0, blocksToPause - 1)) decoder.feed(block, BLOCK)
    const soFar = decoder.decodeSoFar(BLOCK, never).words
    expect(soFar.map((w) => w.word).join(' ')).toContain('young man')
    const partials = rest.slice(blocksToPause - 1).map((block) => decoder.feed(block, BLOCK))
    expect(partials[0]!.slice(0, soFar.length)).toEqual(soFar.map((w) => w.word))
    expect(partials.at(-1)!.length).toBeGreaterThan(soFar.length)
    const before = decoder.decodes
    const end = decoder.endStream(BLOCK, never).words
    expect(decoder.decodes).toBe(before)
    expect(end.slice(0, soFar.length)).toEqual(soFar)
    // The segment after the pause counts its frames from there; its words are put back in the utterance's clock.
    const after = end.slice(soFar.length)
    expect(after.map((w) => w.word).join(' ')).toMatch(/^eight of spades .* seven of hearts$/)
    expect(after[0]!.start).toBeGreaterThanOrEqual(3.2)
    expect(after.at(-1)!.end).toBeLessThanOrEqual(pcm.length / 16000 + 0.01)
    expect(wer(truth, end.map((w) => w.word).join(' ')).wer).toBeLessThan(0.3)
  })

  it('stopped part-way, the utterance goes on from its first sample: the end has all its words, timed in the audio', () => {
    const pcm = recording('cards-005.wav')
    const rest = startWith(pcm)
    const half = Math.floor(rest.length / 2)
    for (const block of rest.slice(0, half)) decoder.feed(block, BLOCK)
    let asked = 0
    const stopped = decoder.decodeSoFar(BLOCK, () => ++asked > 2)
    expect(stopped).toEqual({ words: [], stopped: true })
    for (const block of rest.slice(half)) decoder.feed(block, BLOCK)
    const before = decoder.decodes
    const words = decoder.endStream(BLOCK, never).words
    expect(decoder.decodes).toBe(before)
    expect(words.map((w) => w.word).join(' ')).toBe('eight of spades four of clubs seven of hearts')
    expect(words[0]!.start).toBeLessThan(0.5)
    expect(words.at(-1)!.end).toBeLessThanOrEqual(pcm.length / 16000 + 0.01)
  })
})

describe('pocketsphinx live utterances decoded so far through the engine', () => {
  it('answers the words the end then gives; an aborted one rejects at once and the utterance goes on', async () => {
    const { pcm, blocksToPause, truth } = withPause()
    const [first, ...rest] = blocks(pcm)
    const { stream } = await engine.openStream(first!, { language: 'en' })
    for (const block of rest.slice(0, blocksToPause - 1)) await stream.feed(block)
    const dropped = new AbortController()
    const aborted = stream.decodeSoFar!(dropped.signal)
    dropped.abort()
    await expect(aborted).rejects.toSatisfy(isAbortError)
    for (const block of rest.slice(blocksToPause - 1)) await stream.feed(block)
    const soFar = await stream.decodeSoFar!(new AbortController().signal)
    const words = await stream.end()
    expect(words).toEqual(soFar)
    expect(wer(truth, words.map((w) => w.word).join(' ')).wer).toBeLessThan(0.3)
  })
})
