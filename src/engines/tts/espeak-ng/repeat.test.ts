import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { collect, SENTENCE } from '../../../../test/support/tts-engine-kit.js'
import type { TtsEngine } from '../types.js'
import { createEspeakEngine } from './index.js'

let engine: TtsEngine

beforeAll(async () => {
  // One worker, so every call below runs in the same long-lived eSpeak NG instance.
  engine = await createEspeakEngine({ processes: 1 })
})
afterAll(() => engine?.close())

/**
 * eSpeak NG keeps synthesis state between calls (docs/engines.md, "Reproducibility"), so the same request in
 * one worker is not sample-identical. What does hold, and what this pins: the same words with the same
 * timings, and the same length to within a few pitch periods.
 */
describe('eSpeak NG: the same request in one long-lived worker', () => {
  it('gives the same words, word timings within 15 ms and a length within 0.5 %, whatever ran in between', async () => {
    const request = { text: SENTENCE, voice: 'en-us' }
    const first = await collect(engine, request)
    await collect(engine, { text: 'Quelque chose de tout à fait différent, avec une question ?', voice: 'fr' })
    await collect(engine, { text: 'Something else, faster and higher!', voice: 'en-us', rate: 1.8, pitchSemitones: 4 })
    const again = await collect(engine, request)
    expect(again.words.map((w) => w.text)).toEqual(first.words.map((w) => w.text))
    for (const [i, w] of again.words.entries()) {
      expect(Math.abs(w.start - first.words[i]!.start)).toBeLessThan(0.015)
      expect(Math.abs(w.end - first.words[i]!.end)).toBeLessThan(0.015)
    }
    expect(Math.abs(again.samples.length / first.samples.length - 1)).toBeLessThan(0.005)
  })
})
