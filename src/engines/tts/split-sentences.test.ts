import { describe, expect, it } from 'vitest'
import { splitSentences } from './split-sentences.js'

describe('splitSentences', () => {
  it('splits at sentence ends and keeps offsets into the original text', () => {
    const text = '  Hello there! How are you? Fine.\nNext line'
    const pieces = splitSentences(text)
    expect(pieces.map((p) => p.text)).toEqual(['Hello there!', 'How are you?', 'Fine.', 'Next line'])
    for (const p of pieces) expect(text.slice(p.start, p.start + p.text.length)).toBe(p.text)
  })

  it('does not split after abbreviations, decimals or before lower-case words', () => {
    const pieces = splitSentences('Mr. Smith paid 3.5 dollars at 10 a.m. and left. Then e.g. this one.')
    expect(pieces.map((p) => p.text)).toEqual(['Mr. Smith paid 3.5 dollars at 10 a.m. and left.', 'Then e.g. this one.'])
  })

  it('cuts long sentences at clause marks or spaces, within the limit', () => {
    const text = Array.from({ length: 60 }, (_, i) => `word${i}${i % 7 === 6 ? ',' : ''}`).join(' ')
    const pieces = splitSentences(text, 80)
    expect(pieces.length).toBeGreaterThan(4)
    for (const p of pieces) {
      expect(p.text.length).toBeLessThanOrEqual(80)
      expect(text.slice(p.start, p.start + p.text.length)).toBe(p.text)
    }
    expect(pieces.map((p) => p.text).join(' ')).toBe(text)
  })

  it('drops pieces without letters or digits and never splits surrogate pairs', () => {
    expect(splitSentences('... ?! 😀😀')).toEqual([])
    const emoji = '😀'.repeat(100)
    for (const p of splitSentences(`a${emoji}`, 51)) expect(p.text).not.toMatch(/^[\udc00-\udfff]|[\ud800-\udbff]$/u)
  })
})
