import { describe, expect, it } from 'vitest'
import { countSyllables } from './syllables.js'

/** Everyday words with dictionary syllable counts (CMUdict). */
const WORDS: Record<string, number> = {
  the: 1, train: 1, city: 2, leaves: 1, every: 2, morning: 2, eight: 1, please: 1, remember: 3, bread: 1,
  home: 1, brother: 2, hospital: 3, river: 2, children: 2, played: 1, until: 2, opened: 2, window: 2,
  because: 2, raining: 2, streets: 1, neighbors: 2, large: 1, corner: 2, vegetables: 4, watched: 1,
  funny: 2, movie: 2, laughed: 1, whole: 1, wanted: 2, boxes: 2, likes: 1, table: 2, little: 2,
  create: 2, radio: 3, piano: 3, riot: 2, yes: 1, beautiful: 3, science: 2, simple: 2, made: 1, fruit: 1,
  idea: 3, quiet: 2, going: 2, poem: 2, officials: 3, bridge: 1, traffic: 2, early: 2, month: 1,
  forgot: 2, outside: 2, battery: 3, almost: 2, tomorrow: 3, afternoon: 3, fifteen: 2, minutes: 2,
  newspaper: 3, quietly: 3, office: 2, teacher: 2, students: 2, chapter: 2, visit: 2, friends: 1,
  nearest: 2, seriously: 4, usually: 4, television: 4, used: 1, themselves: 2, sometimes: 2, orange: 2,
  people: 2, family: 3, information: 4, computer: 3, language: 2, question: 2, special: 2, delicious: 3,
}

describe('countSyllables', () => {
  it('counts at least 95 % of everyday English words exactly', () => {
    const wrong = Object.entries(WORDS).filter(([w, n]) => countSyllables(w) !== n)
    expect(wrong.length / Object.keys(WORDS).length).toBeLessThanOrEqual(0.05)
  })

  it('counts sentences within 5 % of the dictionary total', () => {
    // 14 + 13 + 13 = 40 (CMUdict, "every" as two syllables).
    const text = 'The train to the city leaves every morning at eight. Please remember to buy milk and bread on ' +
      'your way home. My brother works at a small hospital near the river.'
    expect(Math.abs(countSyllables(text) - 40)).toBeLessThanOrEqual(2)
  })

  it('handles punctuation, case, apostrophes, digits and CJK characters', () => {
    expect(countSyllables("DON'T stop!")).toBe(2)
    expect(countSyllables('  ')).toBe(0)
    expect(countSyllables('7 8')).toBe(3)
    expect(countSyllables('你好世界')).toBe(4)
    expect(countSyllables('ありがとう')).toBe(5)
  })
})
