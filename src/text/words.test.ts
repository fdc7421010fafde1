import { describe, expect, it } from 'vitest'
import { splitWords } from './words.js'

const words = (text: string) => splitWords(text, []).map((w) => w.text)

describe('splitWords', () => {
  it('keeps numbers, money, dates, times and units whole, and drops surrounding punctuation', () => {
    expect(words('"Pay $1,250.50 on 3/4/2025 at 3:30pm," she said (twice).')).toEqual([
      'Pay', '$1,250.50', 'on', '3/4/2025', 'at', '3:30pm', 'she', 'said', 'twice',
    ])
    expect(words('-5°C, 50%, 10-20km, 1999–2001, -$5, .5')).toEqual(['-5°C', '50%', '10-20km', '1999–2001', '-$5', '.5'])
  })

  it('keeps the period of abbreviations, initials and dotted acronyms, but not of sentence ends', () => {
    expect(words('Dr. Smith met J. K. Rowling in the U.S. today. No. 5 is here. No. It is not.')).toEqual([
      'Dr.', 'Smith', 'met', 'J.', 'K.', 'Rowling', 'in', 'the', 'U.S.', 'today', 'No.', '5', 'is', 'here', 'No',
      'It', 'is', 'not',
    ])
  })

  it('keeps contractions, hyphenated words, URLs and e-mail addresses whole', () => {
    expect(words("don't well-known https://example.com/a?b=1. mail me@example.com")).toEqual([
      "don't", 'well-known', 'https://example.com/a?b=1', 'mail', 'me@example.com',
    ])
  })

  it('splits at dashes and ellipses between words', () => {
    expect(words('wait—what...really')).toEqual(['wait', 'what', 'really'])
  })

  it('makes every CJK character a word and keeps digits together', () => {
    expect(words('2025年3月4日，我用iPhone。')).toEqual(['2025', '年', '3', '月', '4', '日', '我', '用', 'iPhone'])
  })

  it('reports exact offsets and skips markup spans', () => {
    const text = 'Hi (happy) there'
    const list = splitWords(text, [{ start: 3, end: 10 }])
    expect(list.map((w) => [w.text, w.start, w.end, text.slice(w.start, w.end)])).toEqual([
      ['Hi', 0, 2, 'Hi'], ['there', 11, 16, 'there'],
    ])
  })
})
