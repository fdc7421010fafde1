import { describe, expect, it } from 'vitest'
import type { RecognizedWord } from '../engines/asr/types.js'
import { groupPhrases, phraseText } from './phrases.js'

const w = (word: string, start: number, end: number): RecognizedWord => ({ word, start, end, confidence: 1 })

describe('phrases', () => {
  it('splits at pauses longer than the threshold', () => {
    const words = [w('hello', 0, 0.4), w('there', 0.45, 0.8), w('how', 1.5, 1.7), w('are', 1.7, 1.9)]
    const phrases = groupPhrases(words)
    expect(phrases.map((p) => p.map((x) => x.word))).toEqual([['hello', 'there'], ['how', 'are']])
  })

  it('cuts a long pause-free run at its widest gap', () => {
    // Words every 0.5 s with 0.05 s gaps, one 0.25 s gap before w25: 20 s and no pause over 0.3 s.
    const words = Array.from({ length: 40 }, (_, i) => {
      const at = i * 0.5 + (i >= 25 ? 0.2 : 0)
      return w(`w${i}`, at, at + 0.45)
    })
    const phrases = groupPhrases(words, { maxPhraseSeconds: 15 })
    expect(phrases.length).toBe(2)
    expect(phrases[1]![0]!.word).toBe('w25')
  })

  it('sentence-cases a phrase', () => {
    expect(phraseText(['i', 'think', "i'm", 'late'])).toBe("I think I'm late.")
    expect(phraseText(['hello', '', 'world'])).toBe('Hello world.')
    expect(phraseText([])).toBe('')
  })
})
