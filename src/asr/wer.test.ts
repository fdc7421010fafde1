import { describe, expect, it } from 'vitest'
import { alignWords, corpusWer, normalizeWords, wer, wordEdits } from './wer.js'

/** Words of a test sentence, already normalized. */
const split = (t: string) => t.split(' ')

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

  it('aligns words: which reference words were heard and where words were inserted', () => {
    expect(alignWords(split('the ceo of nasa spoke'), split('the sale of nasa spoke'))).toEqual({
      heard: [true, false, true, true, true],
      insertedBefore: [0, 0, 0, 0, 0, 0],
    })
    expect(alignWords(split('dial nine one one now'), split('dial nine one and one now'))).toEqual({
      heard: [true, true, true, true, true],
      insertedBefore: [0, 0, 0, 1, 0, 0],
    })
    expect(alignWords(split('a b c'), split('b c d'))).toEqual({ heard: [false, true, true], insertedBefore: [0, 0, 0, 1] })
    expect(alignWords([], split('x y'))).toEqual({ heard: [], insertedBefore: [2] })
  })

  it('calls a word misheard only when no optimal alignment hears it', () => {
    // "a" can be matched or substituted at equal cost; the alignment that hears it wins.
    expect(alignWords(split('a b'), split('a'))).toEqual({ heard: [true, false], insertedBefore: [0, 0, 0] })
    expect(alignWords(split('x a'), split('a y'))).toEqual({ heard: [false, true], insertedBefore: [0, 0, 1] })
  })

  it('counts the same edits as a plain Levenshtein distance on random word lists', () => {
    // The textbook recurrence, as an oracle for the alignment-based count.
    const levenshtein = (a: readonly string[], b: readonly string[]): number => {
      let prev = Array.from({ length: b.length + 1 }, (_, j) => j)
      for (let i = 1; i <= a.length; i++) {
        const row = [i]
        for (let j = 1; j <= b.length; j++) row.push(Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)))
        prev = row
      }
      return prev[b.length]!
    }
    let seed = 7
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
    const words = () => Array.from({ length: Math.floor(next() * 9) }, () => 'abcd'[Math.floor(next() * 4)]!)
    for (let n = 0; n < 500; n++) {
      const [a, b] = [words(), words()]
      expect(wordEdits(a, b), `${a.join(' ')} → ${b.join(' ')}`).toBe(levenshtein(a, b))
    }
  })
})
