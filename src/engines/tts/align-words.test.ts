import { describe, expect, it } from 'vitest'
import { wordsFromSpoken, type SpokenWord } from './align-words.js'
import { snapRange, textWords } from './text-words.js'

function timed(names: readonly (string | [string, string])[]): SpokenWord[] {
  return names.map((n, i) => {
    const [name, hint] = typeof n === 'string' ? [n, undefined] : n
    return { name, ...(hint === undefined ? {} : { hint }), start: i, end: i + 0.9 }
  })
}

describe('textWords', () => {
  it('keeps apostrophes, hyphens and number separators inside words', () => {
    expect(textWords(`Don't re-enter: 3.5 km at 10:30, ok.`).map((w) => w.text)).toEqual([
      `Don't`, 're-enter', '3.5', 'km', 'at', '10:30', 'ok',
    ])
  })
})

describe('wordsFromSpoken', () => {
  it('maps normalized engine words back to the text, merging expansions', () => {
    const text = 'Hello, world! The 3 cats ran 25 miles.'
    const words = wordsFromSpoken(text, timed(['hello', 'world', 'the', 'three', 'cats', 'ran', 'twenty', 'five', 'miles']))
    expect(words.map((w) => w.text)).toEqual(['Hello', 'world', 'The', '3', 'cats', 'ran', '25', 'miles'])
    for (const w of words) expect(text.slice(w.charStart, w.charEnd)).toBe(w.text)
    const n25 = words[6]!
    expect([n25.start, n25.end]).toEqual([6, 7.9])
  })

  it('uses token hints and spelled-out letters', () => {
    const text = 'The USA and back\\slash'
    const words = wordsFromSpoken(
      text,
      timed([
        ['the', 'The'], ['u', 'USA'], ['s', 'USA'], ['a', 'USA'], ['and', 'and'],
        ...[...'back\\slash'].map((c): [string, string] => [c, 'back\\slash']),
      ]),
    )
    expect(words.map((w) => w.text)).toEqual(['The', 'USA', 'and', 'back', 'slash'])
    expect(words[1]!.start).toBe(1)
    expect(words[1]!.end).toBe(3.9)
    expect(words[3]!.end).toBeLessThan(words[4]!.start)
  })

  it('skips text words the engine did not speak and drops engine words it cannot place', () => {
    const text = 'alpha 😀 beta gamma delta'
    const words = wordsFromSpoken(text, timed(['alpha', 'grinning', 'beta', 'delta']))
    expect(words.map((w) => w.text)).toEqual(['alpha', 'beta', 'delta'])
  })

  it('keeps repeated words apart', () => {
    const words = wordsFromSpoken('the the the', timed(['the', 'the', 'the']))
    expect(words.map((w) => w.charStart)).toEqual([0, 4, 8])
  })

  it('uses a same-length transliteration for matching but reports the original text', () => {
    const words = wordsFromSpoken('café crème', timed(['cafe', 'creme']), 'cafe creme')
    expect(words.map((w) => w.text)).toEqual(['café', 'crème'])
  })
})

describe('snapRange', () => {
  it('widens to whole words and trims spaces from ranges outside words', () => {
    const text = 'ran 25 miles 😀 ok'
    const words = textWords(text)
    expect(snapRange(text, words, 5, 7)).toEqual({ start: 4, end: 6, inWord: true })
    expect(snapRange(text, words, 12, 15)).toEqual({ start: 13, end: 15, inWord: false })
    expect(snapRange(text, words, 3, 3)).toBeNull()
  })
})
