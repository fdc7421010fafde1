import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  abortLatency, collect, expectPausesBetweenWords, expectSpeech, expectWords, HOSTILE_TEXT, LONG_TEXT, medianF0,
  SENTENCE, SENTENCE_WORDS,
} from '../../../../test/support/tts-engine-kit.js'
import type { TtsEngine } from '../types.js'
import { createEspeakEngine } from './index.js'

let engine: TtsEngine

beforeAll(async () => {
  engine = await createEspeakEngine({ processes: 2 })
})
afterAll(() => engine?.close())

describe('eSpeak NG engine', () => {
  it('lists about a hundred languages with unique voice ids', () => {
    const voices = engine.voices()
    expect(voices.length).toBeGreaterThan(100)
    expect(new Set(voices.map((v) => v.id)).size).toBe(voices.length)
    expect(voices.map((v) => v.id)).toEqual(expect.arrayContaining(['en-us', 'en', 'de', 'fr', 'cmn', 'ja']))
    expect(voices.find((v) => v.id === 'cmn')?.languages).toEqual(expect.arrayContaining(['cmn', 'zh']))
    expect(engine.capabilities.languages).toEqual(expect.arrayContaining(['en', 'en-us', 'de', 'zh', 'es']))
    expect(engine.sampleRate).toBe(22050)
  })

  it('streams a sentence in small chunks with exact word timings', async () => {
    const c = await collect(engine, { text: SENTENCE, voice: 'en-us' })
    expectSpeech(c, 1.5, 6)
    expectWords(SENTENCE, c, SENTENCE_WORDS)
    expect(c.chunks).toBeGreaterThan(8)
  })

  it('maps numbers, symbols and code points back to the text', async () => {
    const text = `Café 😀 owner ran 25 miles; “quoted” text.`
    const c = await collect(engine, { text, voice: 'en-us' })
    expectWords(text, c, ['Café', '😀', 'owner', 'ran', '25', 'miles', 'quoted', 'text'])
  })

  it('times words eSpeak speaks as one unit with one event ("I am")', async () => {
    const text = 'Yes, I am doing very well, thank you.'
    const c = await collect(engine, { text, voice: 'en-us' })
    expectWords(text, c, ['Yes', 'I', 'am', 'doing', 'very', 'well', 'thank', 'you'])
  })

  it('puts word boundaries at the pauses', async () => {
    const text = 'Yes. We stopped, and waited. Then, after a while, we went home.'
    const c = await collect(engine, { text, voice: 'en-us' })
    expectWords(text, c, ['Yes', 'We', 'stopped', 'and', 'waited', 'Then', 'after', 'a', 'while', 'we', 'went', 'home'])
    expect(expectPausesBetweenWords(c, engine.sampleRate)).toBeGreaterThanOrEqual(2)
  })

  it('speaks other languages', async () => {
    const text = 'Der schnelle braune Fuchs springt über den faulen Hund.'
    const c = await collect(engine, { text, voice: 'de' })
    expectSpeech(c, 1.5, 6)
    expectWords(text, c, ['Der', 'schnelle', 'braune', 'Fuchs', 'springt', 'über', 'den', 'faulen', 'Hund'])
    const zh = await collect(engine, { text: '你好，世界。', voice: 'cmn' })
    expectSpeech(zh, 0.5, 4)
  })

  it('speaks twice as fast at rate 2 and shifts pitch natively', async () => {
    const normal = await collect(engine, { text: SENTENCE, voice: 'en-us' })
    const fast = await collect(engine, { text: SENTENCE, voice: 'en-us', rate: 2 })
    expect(fast.duration / normal.duration).toBeGreaterThan(0.45)
    expect(fast.duration / normal.duration).toBeLessThan(0.55)
    expectWords(SENTENCE, fast, SENTENCE_WORDS)
    const high = await collect(engine, { text: SENTENCE, voice: 'en-us', pitchSemitones: 5 })
    const ratio = medianF0(high.samples, 22050) / medianF0(normal.samples, 22050)
    expect(ratio).toBeGreaterThan(1.2)
    expect(ratio).toBeLessThan(1.47)
  })

  it('stops within 100 ms on abort and keeps working', { retry: 2 }, async () => {
    const ms = await abortLatency(engine, { text: LONG_TEXT.repeat(4), voice: 'en-us' })
    expect(ms).toBeLessThan(100)
    const c = await collect(engine, { text: SENTENCE, voice: 'en-us' })
    expectWords(SENTENCE, c, SENTENCE_WORDS)
  })

  it('stops when the consumer stops reading', async () => {
    for await (const chunk of engine.synthesize({ text: LONG_TEXT.repeat(4), voice: 'en-us' })) {
      expect(chunk.samples.length).toBeGreaterThanOrEqual(0)
      break
    }
    const c = await collect(engine, { text: SENTENCE, voice: 'en-us' })
    expectWords(SENTENCE, c, SENTENCE_WORDS)
  })

  it('does not obey SSML in the text', async () => {
    const text = 'one <break time="20s"/> two &amp; three'
    const c = await collect(engine, { text, voice: 'en-us' })
    expect(c.duration).toBeLessThan(8)
    expectWords(text, c)
    const words = c.words.map((w) => w.text)
    expect(words.filter((w) => ['one', 'two', 'three', 'break', 'amp'].includes(w))).toEqual(['one', 'break', 'two', 'amp', 'three'])
  })

  it('survives hostile text', async () => {
    const c = await collect(engine, { text: HOSTILE_TEXT, voice: 'en-us' })
    expectWords(HOSTILE_TEXT, c)
    expect(c.words.filter((w) => w.text === 'quit').length).toBeGreaterThan(20)
  })
})
