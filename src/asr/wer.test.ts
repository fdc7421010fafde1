import { describe, expect, it } from 'vitest'
import { corpusWer, normalizeWords, wer, wordEdits } from './wer.js'

describe('wer', () => {
  it('normalises case, punctuation and variant markers', () => {
    expect(normalizeWords("Hello, World! It's read(2) 'quoted'."))
      .toEqual(['hello', 'world', "it's", 'read', 'quoted'])
  })

  it('counts substitutions, deletions and insertions', () => {
    expect(wordEdits(['a', 'b', 'c'], ['a', 'x', 'c'])).toBe(1)
    expect(wordEdits(['a', 'b', 'c'], ['a', 'c'])).toBe(1)
    expect(wordEdits(['a', 'b'], ['a', 'b', 'c', 'd'])).toBe(2)
    expect(wordEdits([], ['a'])).toBe(1)
  })

  it('gives a rate per reference word and pools a corpus', () => {
    expect(wer('The cat sat.', 'the cat sat').wer).toBe(0)
    expect(wer('one two three four', 'one too three').wer).toBe(0.5)
    const pooled = corpusWer([
      { reference: 'a b c d', hypothesis: 'a b c d' },
      { reference: 'e f', hypothesis: 'e g' },
    ])
    expect(pooled).toEqual({ errors: 1, words: 6, wer: 1 / 6 })
  })
})
