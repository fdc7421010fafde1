import { execFileSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { SpeechError } from '../../../errors.js'
import { runTtsEngineConformance } from '../../../../test/support/conformance/tts-engine.js'
import { collect, expectSpeech, expectWords, LONG_TEXT, SENTENCE, SENTENCE_WORDS } from '../../../../test/support/tts-engine-kit.js'
import { createFestivalEngine, type FestivalEngine } from './index.js'

const get = runTtsEngineConformance({ name: 'festival', create: () => createFestivalEngine({ processes: 1 }), voice: 'slt' })

describe('festival engine', () => {
  const engine = () => get() as FestivalEngine

  it('reports its voice and the rate festival writes', () => {
    expect(engine().sampleRate).toBe(32000)
    expect(engine().voices().map((v) => v.id)).toEqual(['slt'])
    expect(engine().capabilities).toMatchObject({ rate: true, pitch: false, wordTimings: 'exact' })
  })

  it('maps normalized words (numbers, punctuation, accents) back to the text', async () => {
    const text = `Hello, world! The 3 cats ran 25 miles; don't “quote” the café.`
    const c = await collect(engine(), { text, voice: 'slt' })
    expectWords(text, c, ['Hello', 'world', 'The', '3', 'cats', 'ran', '25', 'miles', "don't", 'quote', 'the', 'café'])
  })

  it('speaks the densest pieces the splitter lets through (its Lisp heap is sized for them)', async () => {
    // 300 digits, read one by one: about 900 segments in one utterance, the most a 300-character piece holds.
    const digits = '9'.repeat(300)
    const c = await collect(engine(), { text: digits, voice: 'slt' })
    expectSpeech(c, 60, 200)
    const words = await collect(engine(), { text: Array(150).fill('a').join(' '), voice: 'slt' })
    expectSpeech(words, 20, 120)
  })

  it('yields one chunk per sentence', async () => {
    const text = 'Yes. We stopped, and waited. Then, after a while, we went home.'
    const c = await collect(engine(), { text, voice: 'slt' })
    expect(c.chunks).toBe(3)
    expectWords(text, c, ['Yes', 'We', 'stopped', 'and', 'waited', 'Then', 'after', 'a', 'while', 'we', 'went', 'home'])
  })

  it('fails the request with engine_failed when its process is killed, then recovers', async () => {
    const it = engine().synthesize({ text: LONG_TEXT, voice: 'slt' })[Symbol.asyncIterator]()
    await it.next()
    const [pid] = engine().processIds().busy
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
    const c = await collect(engine(), { text: SENTENCE, voice: 'slt' })
    expectWords(SENTENCE, c, SENTENCE_WORDS)
    expect(engine().processIds().all).not.toContain(pid)
  })
})
