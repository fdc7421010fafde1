import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { planText } from './plan.js'
import { TAG_ENTRIES } from './tag-table.js'
import { combineTags, lookupTag, NEUTRAL_EXPRESSION, parseTags } from './tags.js'
import type { TagDialect, TextChunk } from './types.js'

function plan(text: string, dialect: TagDialect, normalize = false): TextChunk[] {
  return planText(text, { dialect, normalize, chunkLength: 300, minChunkLength: 0, latency: 'normal', language: 'en' })
}

const summary = (chunks: readonly TextChunk[]) =>
  chunks.map((c) => ({ content: c.content, tags: c.expression.tags, speaker: c.speaker, pause: c.pauseAfterMs }))

describe('the tag table', () => {
  it('holds the Fish s1 emotion list, tone markers, effects and pauses', () => {
    const names = new Set(TAG_ENTRIES.map((e) => e.name))
    for (const name of ['happy', 'sad', 'angry', 'excited', 'calm', 'sarcastic', 'disdainful', 'resigned',
      'in a hurry tone', 'shouting', 'screaming', 'whispering', 'soft tone', 'laughing', 'chuckling', 'sobbing',
      'crying loudly', 'sighing', 'audience laughing', 'pause', 'short pause', 'long pause', 'break', 'long break',
      'emphasis', 'slow', 'fast', 'low voice']) {
      expect(names.has(name), name).toBe(true)
    }
    expect(TAG_ENTRIES.length).toBeGreaterThanOrEqual(100)
  })

  it('is listed in full, with its effects, in docs/expression-tags.md', () => {
    const doc = readFileSync(new URL('../../docs/expression-tags.md', import.meta.url), 'utf8')
    expect(doc).toContain(`${TAG_ENTRIES.length} tags.`)
    for (const e of TAG_ENTRIES) {
      const sign = (n: number) => (n === 0 ? '0' : `${n > 0 ? '+' : '−'}${Math.abs(n)}`)
      const row = `| \`${e.name}\` | ${sign(e.pitchSemitones)} | ×${e.rate} | ${sign(e.volumeDb)} | ${e.pauseMs || '–'} |`
      expect(doc, e.name).toContain(row)
    }
  })

  it('keeps every effect inside a range engines render well', () => {
    for (const e of TAG_ENTRIES) {
      expect(Math.abs(e.pitchSemitones), e.name).toBeLessThanOrEqual(4)
      expect(e.rate, e.name).toBeGreaterThanOrEqual(0.8)
      expect(e.rate, e.name).toBeLessThanOrEqual(1.25)
      expect(e.kind === 'pause' ? e.pauseMs > 0 : e.pauseMs === 0, e.name).toBe(true)
    }
  })
})

describe('lookupTag', () => {
  it('matches names and aliases case-insensitively, with modifiers and timed pauses', () => {
    expect(lookupTag('Whispers')?.name).toBe('whispering')
    expect(lookupTag(' HAPPY ')?.name).toBe('happy')
    expect(lookupTag('long-break')?.pauseMs).toBe(1000)
    expect(lookupTag('very excited')).toMatchObject({ name: 'very excited', scale: 1.5 })
    expect(lookupTag('slightly sad')).toMatchObject({ name: 'slightly sad', scale: 0.5 })
    expect(lookupTag('pause 2s')?.pauseMs).toBe(2000)
    expect(lookupTag('pause: 750ms')?.pauseMs).toBe(750)
    expect(lookupTag('pause 60s')?.pauseMs).toBe(5000)
    expect(lookupTag('tired, end of a long shift')).toBeUndefined()
    expect(lookupTag('very see page')).toBeUndefined()
  })
})

describe('combineTags', () => {
  it('adds pitch and volume, multiplies rate, scales by intensity, and clamps', () => {
    const [sad, whisper] = parseTags('(sad)(whispering)', 's1')
    expect(combineTags([sad!, whisper!])).toEqual({ pitchSemitones: -2.5, rate: 0.81, volumeDb: -12, tags: ['sad', 'whispering'] })
    const [veryExcited] = parseTags('[very excited]', 's2-pro')
    expect(combineTags([veryExcited!])).toEqual({ pitchSemitones: 3, rate: 1.18, volumeDb: 4.5, tags: ['very excited'] })
    const loud = parseTags('[screaming][screaming][shouting][furious]', 's2-pro')
    expect(combineTags(loud).volumeDb).toBe(12)
    expect(combineTags([])).toBe(NEUTRAL_EXPRESSION)
  })
})

describe('s1 dialect (parentheses)', () => {
  it('removes known tags and applies them until the sentence ends', () => {
    const chunks = plan('(happy) What a day! Back to normal.', 's1')
    expect(summary(chunks)).toEqual([
      { content: 'What a day!', tags: ['happy'], speaker: 0, pause: 300 },
      { content: 'Back to normal.', tags: [], speaker: 0, pause: 0 },
    ])
    expect(chunks[0]?.expression).toMatchObject({ pitchSemitones: 1.5, rate: 1.05, volumeDb: 1 })
  })

  it('speaks parenthesised text that is not a tag, like "(see page 4)"', () => {
    const chunks = plan('Read the notes (see page 4) first.', 's1', true)
    expect(chunks.map((c) => c.content)).toEqual(['Read the notes (see page 4) first.'])
    expect(chunks[0]?.spoken).toBe('Read the notes (see page four) first.')
    expect(chunks[0]?.tokens.map((t) => t.text)).toEqual(['Read', 'the', 'notes', 'see', 'page', '4', 'first'])
  })

  it('treats "(… tone)" as a tag even when unknown, and removes it without effect', () => {
    const chunks = plan('(mocking tone) Oh, sure.', 's1')
    expect(summary(chunks)).toEqual([{ content: 'Oh, sure.', tags: [], speaker: 0, pause: 0 }])
  })

  it('groups adjacent tags and lets a later tag replace them mid-sentence', () => {
    const chunks = plan('(sad)(whispering) I miss you, (excited) but I am back!', 's1')
    expect(summary(chunks)).toEqual([
      { content: 'I miss you,', tags: ['sad', 'whispering'], speaker: 0, pause: 150 },
      { content: 'but I am back!', tags: ['excited'], speaker: 0, pause: 0 },
    ])
  })

  it('adds silence for (break) and (long-break)', () => {
    expect(summary(plan('Wait (break) now (long-break) go.', 's1'))).toEqual([
      { content: 'Wait', tags: [], speaker: 0, pause: 400 },
      { content: 'now', tags: [], speaker: 0, pause: 1000 },
      { content: 'go.', tags: [], speaker: 0, pause: 0 },
    ])
  })

  it('keeps unknown square-bracket text as text, but accepts known s2 cues', () => {
    const chunks = plan('See [1] and [whispers] the rest.', 's1')
    expect(summary(chunks)).toEqual([
      { content: 'See [1] and', tags: [], speaker: 0, pause: 0 },
      { content: 'the rest.', tags: ['whispering'], speaker: 0, pause: 0 },
    ])
  })
})

describe('s2-pro dialect (square brackets)', () => {
  it('removes every bracket cue, known or not, and applies the known ones', () => {
    const chunks = plan('[whispers] Hello there. [tired, end of a long shift] Bye [laughing] now.', 's2-pro')
    expect(summary(chunks)).toEqual([
      { content: 'Hello there.', tags: ['whispering'], speaker: 0, pause: 300 },
      { content: 'Bye', tags: [], speaker: 0, pause: 0 },
      { content: 'now.', tags: ['laughing'], speaker: 0, pause: 0 },
    ])
    for (const c of chunks) expect(c.spoken).not.toMatch(/[[\]]|tired|laughing|whispers/)
  })

  it('turns [pause], [short pause] and [long pause] into silence after the preceding chunk', () => {
    expect(summary(plan('One. [pause] Two [short pause] three [long pause] four.', 's2-pro'))).toEqual([
      { content: 'One.', tags: [], speaker: 0, pause: 800 },
      { content: 'Two', tags: [], speaker: 0, pause: 250 },
      { content: 'three', tags: [], speaker: 0, pause: 1000 },
      { content: 'four.', tags: [], speaker: 0, pause: 0 },
    ])
  })

  it('speaks parentheses, but still removes a known s1 tag in them', () => {
    const chunks = plan('(happy) Hello (see page 4).', 's2-pro')
    expect(summary(chunks)).toEqual([{ content: 'Hello (see page 4).', tags: ['happy'], speaker: 0, pause: 0 }])
  })

  it('switches speaker on <|speaker:N|> and starts each speaker neutral', () => {
    const chunks = plan('<|speaker:0|>[excited] Hi there! <|speaker:1|>Hello. How are you? <|speaker:0|>Fine.', 's2-pro')
    expect(summary(chunks)).toEqual([
      { content: 'Hi there!', tags: ['excited'], speaker: 0, pause: 300 },
      { content: 'Hello. How are you?', tags: [], speaker: 1, pause: 300 },
      { content: 'Fine.', tags: [], speaker: 0, pause: 0 },
    ])
  })

  it('removes other <|…|> control tokens', () => {
    expect(plan('Say <|phoneme_start|>hello<|phoneme_end|> now', 's2-pro').map((c) => c.content))
      .toEqual(['Say hello now'])
  })

  it('never lets a tag reach content, spoken text or tokens', () => {
    const text = '[sad] Well (happy) [pause] it <|speaker:2|> is [very excited] fine (calm).'
    for (const dialect of ['s1', 's2-pro'] as const) {
      const chunks = plan(text, dialect, true)
      expect(chunks.map((c) => c.content).join(' ')).toBe('Well it is fine.')
      for (const c of chunks) {
        expect(c.spoken).not.toMatch(/sad|happy|pause|speaker|excited|calm/)
        for (const t of c.tokens) expect(t.text).not.toMatch(/[[\]()<>|]/)
      }
    }
  })
})

describe('parseTags', () => {
  it('reports spans with exact offsets and rescans inside rejected parentheses', () => {
    const text = 'a (note [pause] here) b'
    const spans = parseTags(text, 's2-pro')
    expect(spans.map((s) => [text.slice(s.start, s.end), s.kind])).toEqual([['[pause]', 'pause']])
  })

  it('ignores brackets that span lines or are not closed', () => {
    expect(parseTags('[not\nclosed] and [open', 's2-pro')).toEqual([])
  })
})
