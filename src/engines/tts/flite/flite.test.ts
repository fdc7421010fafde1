import { readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  abortLatency, collect, expectPausesBetweenWords, expectSpeech, expectWords, HOSTILE_TEXT, LONG_TEXT, medianF0,
  SENTENCE, SENTENCE_WORDS,
} from '../../../../test/support/tts-engine-kit.js'
import { createFliteEngine, type FliteEngine } from './index.js'

let engine: FliteEngine
const scratchDirs = (): string[] => readdirSync(tmpdir()).filter((n) => n.startsWith(`parla-flite-${process.pid}-`))

/** Scratch directories left after the worker of an aborted request has been terminated (give it a second). */
async function leftoverDirs(): Promise<string[]> {
  for (let i = 0; i < 50 && scratchDirs().length > 0; i++) await new Promise((r) => setTimeout(r, 20))
  return scratchDirs()
}

beforeAll(async () => {
  engine = await createFliteEngine({ processes: 2 })
})
afterAll(() => engine?.close())

describe('flite engine', () => {
  it('lists its 16 kHz voices and declares per-voice pitch support', () => {
    expect(engine.sampleRate).toBe(16000)
    expect(engine.voices().map((v) => v.id)).toEqual(['slt', 'rms', 'awb', 'kal16'])
    expect(engine.voices().find((v) => v.id === 'rms')?.pitch).toBe(false)
    expect(engine.capabilities).toMatchObject({ rate: true, pitch: true, streaming: 'utterance' })
  })

  it.each(['slt', 'rms', 'awb', 'kal16'])('speaks a sentence with word timings (%s)', async (voice) => {
    const c = await collect(engine, { text: SENTENCE, voice })
    expectSpeech(c, 1.5, 6)
    expectWords(SENTENCE, c, SENTENCE_WORDS)
  })

  it('maps numbers, contractions and accents back to the text, one chunk per sentence', async () => {
    const text = `Hello, world! The 3 cats ran 25 miles. Don't “quote” the café 😀.`
    const c = await collect(engine, { text, voice: 'rms' })
    expect(c.chunks).toBe(3)
    expectWords(text, c, ['Hello', 'world', 'The', '3', 'cats', 'ran', '25', 'miles', "Don't", 'quote', 'the', 'café'])
  })

  it('puts word boundaries at the pauses', async () => {
    const text = 'Yes. We stopped, and waited. Then, after a while, we went home.'
    const c = await collect(engine, { text, voice: 'slt' })
    expectWords(text, c, ['Yes', 'We', 'stopped', 'and', 'waited', 'Then', 'after', 'a', 'while', 'we', 'went', 'home'])
    expect(expectPausesBetweenWords(c, engine.sampleRate)).toBeGreaterThanOrEqual(2)
  })

  it('speaks twice as fast at rate 2', async () => {
    const normal = await collect(engine, { text: SENTENCE, voice: 'slt' })
    const fast = await collect(engine, { text: SENTENCE, voice: 'slt', rate: 2 })
    expect(fast.duration / normal.duration).toBeGreaterThan(0.45)
    expect(fast.duration / normal.duration).toBeLessThan(0.55)
  })

  it('shifts pitch natively on slt', async () => {
    const normal = await collect(engine, { text: SENTENCE, voice: 'slt' })
    const high = await collect(engine, { text: SENTENCE, voice: 'slt', pitchSemitones: 7 })
    const ratio = medianF0(high.samples, 16000) / medianF0(normal.samples, 16000)
    expect(ratio).toBeGreaterThan(1.35)
    expect(ratio).toBeLessThan(1.65)
  })

  it('keeps the event loop free while synthesizing', async () => {
    let last = performance.now()
    let worst = 0
    const timer = setInterval(() => {
      worst = Math.max(worst, performance.now() - last)
      last = performance.now()
    }, 5)
    try {
      await collect(engine, { text: LONG_TEXT, voice: 'slt' })
    } finally {
      clearInterval(timer)
    }
    // A synchronous flite call would block for the whole text (about a second); worker threads keep gaps short.
    expect(worst).toBeLessThan(250)
  })

  it('stops within 100 ms on abort, leaves no scratch files and keeps working', { retry: 2 }, async () => {
    const ms = await abortLatency(engine, { text: LONG_TEXT, voice: 'slt' })
    expect(ms).toBeLessThan(100)
    expect(await leftoverDirs()).toEqual([])
    const c = await collect(engine, { text: SENTENCE, voice: 'slt' })
    expectWords(SENTENCE, c, SENTENCE_WORDS)
    // The terminated worker has been replaced.
    for (let i = 0; i < 100 && engine.workers().all < 2; i++) await new Promise((r) => setTimeout(r, 50))
    expect(engine.workers()).toEqual({ all: 2, busy: 0 })
  })

  it('survives hostile text', async () => {
    const c = await collect(engine, { text: HOSTILE_TEXT, voice: 'kal16' })
    expectWords(HOSTILE_TEXT, c)
    expect(c.words.filter((w) => w.text === 'quit').length).toBeGreaterThan(20)
    expect(scratchDirs()).toEqual([])
  })
})
