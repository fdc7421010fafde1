import { describe, expect, it } from 'vitest'
import { planText } from './plan.js'
import type { Latency, TextChunk, TextPipelineOptions } from './types.js'
import { splitWords } from './words.js'
import { parseTags } from './tags.js'

const OPTIONS: TextPipelineOptions = {
  dialect: 's2-pro', normalize: true, chunkLength: 200, minChunkLength: 0, latency: 'normal',
}

/** The token-map contract: original slices, spoken slices, nothing spoken outside a token. */
function expectTokenMap(text: string, chunks: readonly TextChunk[]): void {
  for (const chunk of chunks) {
    let covered = 0
    let outside = ''
    for (const t of chunk.tokens) {
      expect(text.slice(t.origStart, t.origEnd)).toBe(t.text)
      expect(t.spokenStart).toBeGreaterThanOrEqual(covered)
      expect(t.spokenEnd).toBeGreaterThan(t.spokenStart)
      outside += chunk.spoken.slice(covered, t.spokenStart)
      covered = t.spokenEnd
    }
    outside += chunk.spoken.slice(covered)
    // Between tokens there is only whitespace and punctuation: every spoken word is inside one token.
    expect(outside, chunk.spoken).toMatch(/^[\s\p{P}]*$/u)
  }
}

describe('planText token map', () => {
  it('maps "$5" to one token spanning "five dollars"', () => {
    const text = 'It costs $5 today.'
    const [chunk] = planText(text, OPTIONS)
    expect(chunk?.spoken).toBe('It costs five dollars today.')
    const token = chunk?.tokens[2]
    expect(token).toEqual({ text: '$5', origStart: 9, origEnd: 11, spokenStart: 9, spokenEnd: 21 })
    expect(chunk?.spoken.slice(token!.spokenStart, token!.spokenEnd)).toBe('five dollars')
    expectTokenMap(text, planText(text, OPTIONS))
  })

  it('keeps each written word whole: "$1,250", "3/4/2025", "Dr." are single tokens', () => {
    const text = 'Dr. Smith paid $1,250 on 3/4/2025.'
    const [chunk] = planText(text, OPTIONS)
    expect(chunk?.tokens.map((t) => [t.text, chunk.spoken.slice(t.spokenStart, t.spokenEnd)])).toEqual([
      ['Dr.', 'Doctor'], ['Smith', 'Smith'], ['paid', 'paid'], ['$1,250', 'one thousand two hundred fifty dollars'],
      ['on', 'on'], ['3/4/2025', 'March fourth, twenty twenty-five'],
    ])
    expect(chunk?.content).toBe(text)
    expectTokenMap(text, planText(text, OPTIONS))
  })

  it('points tokens at the user text even after tags were removed before them', () => {
    const text = '[excited] We won $45! (laughing) Ha, ha.'
    const chunks = planText(text, OPTIONS)
    expectTokenMap(text, chunks)
    const won = chunks[0]?.tokens.find((t) => t.text === '$45')
    expect(won).toMatchObject({ origStart: 17, origEnd: 20 })
    expect(chunks[0]?.spoken.slice(won!.spokenStart, won!.spokenEnd)).toBe('forty-five dollars')
  })

  it('produces tokens without normalization: spoken is the text minus tags', () => {
    const text = '(happy)  Hi   there, $5\non 3/4/2025!'
    const chunks = planText(text, { ...OPTIONS, dialect: 's1', normalize: false })
    expect(chunks.map((c) => [c.content, c.spoken])).toEqual([['Hi there, $5 on 3/4/2025!', 'Hi there, $5 on 3/4/2025!']])
    expect(chunks[0]?.tokens.map((t) => t.text)).toEqual(['Hi', 'there', '$5', 'on', '3/4/2025'])
    expectTokenMap(text, chunks)
  })

  it('holds the contract over a long mixed text in every latency mode', () => {
    const text = LONG_TEXT
    for (const latency of ['low', 'balanced', 'normal'] as const) {
      for (const normalize of [true, false]) {
        const chunks = planText(text, { ...OPTIONS, latency, normalize, dialect: 's1', minChunkLength: 50 })
        expectTokenMap(text, chunks)
        // Every word of the text appears once, in order, across the chunks.
        const words = splitWords(text, parseTags(text, 's1')).map((w) => w.text)
        expect(chunks.flatMap((c) => c.tokens.map((t) => t.text))).toEqual(words)
      }
    }
  })

  it('returns no chunks for text without words', () => {
    expect(planText('', OPTIONS)).toEqual([])
    expect(planText('  [pause] ... (happy) ', OPTIONS)).toEqual([])
  })

  it('tidies whitespace and the space a removed tag leaves behind', () => {
    const chunks = planText('Hi [laughing]. Well ,  that [sigh]\tis\n\nit', { ...OPTIONS, normalize: false })
    // "[laughing]" stands after the last word of its sentence, so it colours nothing and splits nothing.
    expect(chunks.map((c) => c.content)).toEqual(['Hi. Well , that', 'is', 'it'])
    expect(chunks.map((c) => c.expression.tags)).toEqual([[], ['sighing'], []])
  })

  it('clamps out-of-range options instead of failing', () => {
    const text = 'word '.repeat(200)
    const chunks = planText(text, { ...OPTIONS, chunkLength: 5000, minChunkLength: -3 })
    for (const c of chunks) expect(c.content.length).toBeLessThanOrEqual(300)
  })
})

describe('planText invariants over generated texts', () => {
  const PIECES = ['Hello', 'world', ',', '.', '!', '?', '$5', '$1,250.50', '3/4/2025', '14:05', 'pm', 'Dr.', 'St.',
    'etc.', 'e.g.', '(happy)', '[pause]', '[whispers]', '(see page 4)', '<|speaker:1|>', '今天', '很好', '。', '，',
    '2025年', '50%', '¥5.50', '\n', '\n\n', '—', '...', '"', '(', ']', '5km', '-3°C', '22nd', 'https://x.io/a.',
    "don't", 'U.S.', 'J.', 'the', 'x'.repeat(150), '\u200b', '1-5', '555-123-4567', '&', 'No.', '1999', '¿']

  it('keeps the token map, the word order and the length bound for any mix of features', () => {
    let seed = 7
    const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648
    for (let iteration = 0; iteration < 300; iteration++) {
      let text = ''
      for (let i = Math.floor(random() * 60); i > 0; i--) {
        text += (PIECES[Math.floor(random() * PIECES.length)] as string) + (random() < 0.7 ? ' ' : '')
      }
      const dialect = random() < 0.5 ? 's1' : 's2-pro'
      const latency: Latency = iteration % 3 === 0 ? 'low' : iteration % 3 === 1 ? 'balanced' : 'normal'
      const chunkLength = 100 + Math.floor(random() * 201)
      const options = { dialect, latency, chunkLength, normalize: random() < 0.7, minChunkLength: 50 } as const
      const chunks = planText(text, options)
      expectTokenMap(text, chunks)
      const words = splitWords(text, parseTags(text, dialect)).map((w) => w.text)
      expect(chunks.flatMap((c) => c.tokens.map((t) => t.text))).toEqual(words)
      for (const c of chunks) {
        expect(c.content).toBe(c.content.trim())
        expect(c.content).not.toMatch(/\s\s/)
        if (c.tokens.length > 1) expect(Math.max(c.content.length, c.spoken.length)).toBeLessThanOrEqual(chunkLength)
      }
    }
  })
})

const LONG_TEXT = [
  '(happy) On 3/4/2025, Dr. Smith paid $1,250.50 for 12 items (about 5.5% more than in 1999) at 3:30 pm.',
  'It was great, wasn\'t it? The 22nd meeting is at 14:05 in room 101; call 555-123-4567 or e-mail us.',
  '(whispering) Nobody knows: the 3rd floor, the 4th floor — and the roof, etc. (break) Then it rained.',
  'Temperatures fell to -3°C, winds reached 60 mph, and 1,000,000 people stayed home, i.e. nearly everyone.',
  '',
  'A new paragraph starts here and keeps going for a while without much punctuation at all so that the chunker',
  'has to split it somewhere between words because no clause boundary is available anywhere in this long stretch',
  'of text which goes on and on.',
].join('\n')
