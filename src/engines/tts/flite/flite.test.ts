import { describe, expect, it } from 'vitest'
import { runTtsEngineConformance } from '../../../../test/support/conformance/tts-engine.js'
import { collect, expectSpeech, expectWords, HOSTILE_TEXT, LONG_TEXT, SENTENCE, SENTENCE_WORDS } from '../../../../test/support/tts-engine-kit.js'
import { createFliteEngine, type FliteEngine } from './index.js'

const get = runTtsEngineConformance({ name: 'flite', create: () => createFliteEngine({ processes: 1 }), voice: 'slt' })

describe('flite engine', () => {
  const engine = () => get() as FliteEngine

  it('lists its 16 kHz voices and declares per-voice pitch support', () => {
    expect(engine().sampleRate).toBe(16000)
    expect(engine().voices().map((v) => v.id)).toEqual(['slt', 'rms', 'awb', 'kal16'])
    expect(engine().voices().find((v) => v.id === 'rms')?.pitch).toBe(false)
    expect(engine().capabilities).toMatchObject({ rate: true, pitch: true, streaming: 'utterance' })
  })

  it.each(['rms', 'awb', 'kal16'])('speaks a sentence with word timings (%s)', async (voice) => {
    const c = await collect(engine(), { text: SENTENCE, voice })
    expectSpeech(c, 1.5, 6)
    expectWords(SENTENCE, c, SENTENCE_WORDS)
  })

  it('maps numbers, contractions and accents back to the text, one chunk per sentence', async () => {
    const text = `Hello, world! The 3 cats ran 25 miles. Don't “quote” the café 😀.`
    const c = await collect(engine(), { text, voice: 'rms' })
    expect(c.chunks).toBe(3)
    expectWords(text, c, ['Hello', 'world', 'The', '3', 'cats', 'ran', '25', 'miles', "Don't", 'quote', 'the', 'café'])
  })

  it('keeps speaking after an abort, and replaces the terminated worker', async () => {
    const controller = new AbortController()
    const chunks = engine().synthesize({ text: LONG_TEXT, voice: 'slt' }, { signal: controller.signal })[Symbol.asyncIterator]()
    await chunks.next()
    controller.abort()
    await expect((async () => { for (;;) if ((await chunks.next()).done) return })()).rejects.toThrow()
    const c = await collect(engine(), { text: SENTENCE, voice: 'slt' })
    expectWords(SENTENCE, c, SENTENCE_WORDS)
    await expect.poll(() => engine().workers(), { timeout: 120_000 }).toEqual({ all: 1, busy: 0 })
  })

  it('survives hostile text', async () => {
    const c = await collect(engine(), { text: HOSTILE_TEXT, voice: 'kal16' })
    expectWords(HOSTILE_TEXT, c)
    expect(c.words.filter((w) => w.text === 'quit').length).toBeGreaterThan(20)
  })
})
