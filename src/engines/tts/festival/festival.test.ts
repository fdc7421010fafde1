import { execFileSync } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SpeechError } from '../../../errors.js'
import {
  abortLatency, collect, expectPausesBetweenWords, expectSpeech, expectWords, HOSTILE_TEXT, LONG_TEXT, SENTENCE,
  SENTENCE_WORDS,
} from '../../../../test/support/tts-engine-kit.js'
import { createFestivalEngine, type FestivalEngine } from './index.js'

let engine: FestivalEngine

beforeAll(async () => {
  engine = await createFestivalEngine({ processes: 1 })
})
afterAll(() => engine?.close())

describe('festival engine', () => {
  it('reports its voice and the rate festival writes', () => {
    expect(engine.sampleRate).toBe(32000)
    expect(engine.voices().map((v) => v.id)).toEqual(['slt'])
    expect(engine.capabilities).toMatchObject({ rate: true, pitch: false, wordTimings: 'exact' })
  })

  it('speaks a sentence with exact word timings that slice the text', async () => {
    const c = await collect(engine, { text: SENTENCE, voice: 'slt' })
    expectSpeech(c, 1.5, 6)
    expectWords(SENTENCE, c, SENTENCE_WORDS)
    expect(c.samples.length).toBeGreaterThan(0)
  })

  it('maps normalized words (numbers, punctuation, accents) back to the text', async () => {
    const text = `Hello, world! The 3 cats ran 25 miles; don't “quote” the café.`
    const c = await collect(engine, { text, voice: 'slt' })
    expectWords(text, c, ['Hello', 'world', 'The', '3', 'cats', 'ran', '25', 'miles', "don't", 'quote', 'the', 'café'])
  })

  it('speaks the densest pieces the splitter lets through (its Lisp heap is sized for them)', async () => {
    // 300 digits, read one by one: about 900 segments in one utterance, the most a 300-character piece holds.
    const digits = '9'.repeat(300)
    const c = await collect(engine, { text: digits, voice: 'slt' })
    expectSpeech(c, 60, 200)
    const words = await collect(engine, { text: Array(150).fill('a').join(' '), voice: 'slt' })
    expectSpeech(words, 20, 120)
  })

  it('yields one chunk per sentence, with word boundaries at the pauses', async () => {
    const text = 'Yes. We stopped, and waited. Then, after a while, we went home.'
    const c = await collect(engine, { text, voice: 'slt' })
    expect(c.chunks).toBe(3)
    expectWords(text, c, ['Yes', 'We', 'stopped', 'and', 'waited', 'Then', 'after', 'a', 'while', 'we', 'went', 'home'])
    expect(expectPausesBetweenWords(c, engine.sampleRate)).toBeGreaterThanOrEqual(2)
  })

  it('speaks twice as fast at rate 2', async () => {
    const normal = await collect(engine, { text: SENTENCE, voice: 'slt' })
    const fast = await collect(engine, { text: SENTENCE, voice: 'slt', rate: 2 })
    expect(fast.duration / normal.duration).toBeGreaterThan(0.45)
    expect(fast.duration / normal.duration).toBeLessThan(0.55)
    expectWords(SENTENCE, fast, SENTENCE_WORDS)
    // The rate is per request: the next default-rate request is normal again.
    const again = await collect(engine, { text: SENTENCE, voice: 'slt' })
    expect(Math.abs(again.duration - normal.duration)).toBeLessThan(0.05)
  })

  it('stops within 100 ms on abort and keeps working', { retry: 2 }, async () => {
    const ms = await abortLatency(engine, { text: LONG_TEXT, voice: 'slt' })
    expect(ms).toBeLessThan(100)
    const c = await collect(engine, { text: SENTENCE, voice: 'slt' })
    expectWords(SENTENCE, c, SENTENCE_WORDS)
  })

  it('fails the request with engine_failed when its process is killed, then recovers', async () => {
    const it = engine.synthesize({ text: LONG_TEXT, voice: 'slt' })[Symbol.asyncIterator]()
    await it.next()
    const [pid] = engine.processIds().busy
    expect(pid).toBeGreaterThan(0)
    execFileSync('kill', ['-9', String(pid)])
    const err = await (async () => {
      try {
        for (;;) if ((await it.next()).done) return undefined
      } catch (e) {
        return e
      }
    })()
    expect(err).toBeInstanceOf(SpeechError)
    expect((err as SpeechError).code).toBe('engine_failed')
    expect((err as SpeechError).message).toMatch(/^\[festival\]/)
    const c = await collect(engine, { text: SENTENCE, voice: 'slt' })
    expectWords(SENTENCE, c, SENTENCE_WORDS)
    expect(engine.processIds().all).not.toContain(pid)
  })

  it('survives hostile text without injection', async () => {
    const c = await collect(engine, { text: HOSTILE_TEXT, voice: 'slt' })
    expectWords(HOSTILE_TEXT, c)
    expect(c.words.filter((w) => w.text === 'quit').length).toBeGreaterThan(20)
    expect(c.words.filter((w) => w.text === 'set').length).toBeGreaterThan(20)
    const after = await collect(engine, { text: SENTENCE, voice: 'slt' })
    expectWords(SENTENCE, after, SENTENCE_WORDS)
  })

  it('rejects unknown voices', async () => {
    await expect(collect(engine, { text: 'hi', voice: 'kal' })).rejects.toMatchObject({ code: 'bad_request' })
  })
})
