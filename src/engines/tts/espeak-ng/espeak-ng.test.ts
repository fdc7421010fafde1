import { describe, expect, it } from 'vitest'
import { runTtsEngineConformance } from '../../../../test/support/conformance/tts-engine.js'
import { collect, expectSpeech, expectWords, SENTENCE, SENTENCE_WORDS } from '../../../../test/support/tts-engine-kit.js'
import { createEspeakEngine } from './index.js'

const get = runTtsEngineConformance({ name: 'eSpeak NG', create: () => createEspeakEngine({ processes: 1 }), voice: 'en-us' })

describe('eSpeak NG engine', () => {
  const engine = get

  it('lists about a hundred languages with unique voice ids', () => {
    const voices = engine().voices()
    expect(voices.length).toBeGreaterThan(100)
    expect(new Set(voices.map((v) => v.id)).size).toBe(voices.length)
    expect(voices.map((v) => v.id)).toEqual(expect.arrayContaining(['en-us', 'en', 'de', 'fr', 'cmn', 'ja']))
    expect(voices.find((v) => v.id === 'cmn')?.languages).toEqual(expect.arrayContaining(['cmn', 'zh']))
    expect(engine().capabilities.languages).toEqual(expect.arrayContaining(['en', 'en-us', 'de', 'zh', 'es']))
    expect(engine().sampleRate).toBe(22050)
  })

  it('streams a sentence in small chunks', async () => {
    const c = await collect(engine(), { text: SENTENCE, voice: 'en-us' })
    expectSpeech(c, 1.5, 6)
    expectWords(SENTENCE, c, SENTENCE_WORDS)
    expect(c.chunks).toBeGreaterThan(8)
  })

  it('maps numbers, symbols and code points back to the text', async () => {
    const text = `Café 😀 owner ran 25 miles; “quoted” text.`
    const c = await collect(engine(), { text, voice: 'en-us' })
    expectWords(text, c, ['Café', '😀', 'owner', 'ran', '25', 'miles', 'quoted', 'text'])
  })

  it('times words eSpeak speaks as one unit with one event ("I am")', async () => {
    const text = 'Yes, I am doing very well, thank you.'
    const c = await collect(engine(), { text, voice: 'en-us' })
    expectWords(text, c, ['Yes', 'I', 'am', 'doing', 'very', 'well', 'thank', 'you'])
  })

  it('speaks other languages', async () => {
    const text = 'Der schnelle braune Fuchs springt über den faulen Hund.'
    const c = await collect(engine(), { text, voice: 'de' })
    expectSpeech(c, 1.5, 6)
    expectWords(text, c, ['Der', 'schnelle', 'braune', 'Fuchs', 'springt', 'über', 'den', 'faulen', 'Hund'])
    const zh = await collect(engine(), { text: '你好，世界。', voice: 'cmn' })
    expectSpeech(zh, 0.5, 4)
  })

  it('does not obey SSML in the text', async () => {
    const text = 'one <break time="20s"/> two &amp; three'
    const c = await collect(engine(), { text, voice: 'en-us' })
    expect(c.duration).toBeLessThan(8)
    expectWords(text, c)
    const words = c.words.map((w) => w.text)
    expect(words.filter((w) => ['one', 'two', 'three', 'break', 'amp'].includes(w))).toEqual(['one', 'break', 'two', 'amp', 'three'])
  })
})
