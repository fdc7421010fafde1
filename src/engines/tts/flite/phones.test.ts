import { describe, expect, it } from 'vitest'
import { parsePhoneGroups, parsePhoneTrace, wordSpans } from './phones.js'

describe('flite phone trace to word spans', () => {
  const trace = parsePhoneTrace(
    'pau:0.164 hh:0.255 ax:0.304 l:0.547 ow:0.661 pau:0.891 w:1.012 er:1.224 l:1.406 d:1.461 pau:1.576',
  )

  it('groups phones by the words in isolation, despite small differences', () => {
    const groups = parsePhoneGroups('pau hh eh l ow pau w er l d pau')
    expect(groups).toEqual([['hh', 'eh', 'l', 'ow'], ['w', 'er', 'l', 'd']])
    expect(wordSpans(trace, ['hello', 'world'], groups)).toEqual([
      { start: 0.164, end: 0.661 },
      { start: 0.891, end: 1.461 },
    ])
  })

  it('falls back to letter counts when the groups do not match the words', () => {
    const spans = wordSpans(trace, ['hello', 'world'], [['hh', 'ax', 'l', 'ow', 'w', 'er', 'l', 'd']])
    expect(spans[0]!.start).toBeCloseTo(0.164)
    expect(spans[1]!.end).toBeCloseTo(1.461)
    expect(spans[0]!.end).toBeLessThanOrEqual(spans[1]!.start)
  })
})
