import { CLAUSE_END, charAt, isCjk, isSpace, OPENING, SENTENCE_END } from './chars.js'
import { BREAK, type Unit } from './segment.js'
import type { Span } from './words.js'

/**
 * The text between two words as it appears in `content` (tags removed, whitespace collapsed) and in
 * `spoken` (the same, plus a period an expanded abbreviation swallowed: "etc." → "et cetera.").
 * `tail`/`head` are what goes to the chunk before / after when a chunk boundary falls in this gap.
 */
export interface Gap {
  readonly content: string
  readonly spoken: string
  readonly contentTail: string
  readonly contentHead: string
  readonly spokenTail: string
  readonly spokenHead: string
}

/** Words, their spoken forms and the gaps around them: `gaps[i]` precedes unit i, `gaps[n]` ends the text. */
export interface Layout {
  readonly units: readonly Unit[]
  readonly spoken: readonly string[]
  readonly gaps: readonly Gap[]
}

const CLOSING = new Set([...SENTENCE_END, ...CLAUSE_END, ')', ']', '}', '”', '’', '」', '』', '》', '）', '】', '"',
  "'"].filter((c) => !OPENING.has(c) && c !== '—' && c !== '–' && c !== '-'))

/** Whitespace collapsed to one space. Spaces that a tag or line break left next to CJK text vanish. */
function visibleGap(text: string, from: number, to: number, tags: readonly Span[], cursor: { next: number },
  left: string, right: string): string {
  let out = ''
  let space: 'none' | 'soft' | 'hard' = 'none'
  let hadTag = false
  const flush = (before: string): void => {
    if (space === 'none') return
    const prev = out === '' ? left : (out[out.length - 1] as string)
    const cjkSide = isCjk(prev) || isCjk(before) || /[\u3000-\u303f\uff00-\uffef]/.test(prev + before)
    if (!(space === 'soft' && cjkSide)) out += ' '
    space = 'none'
  }
  let i = from
  while (i < to) {
    const tag = tags[cursor.next]
    if (tag && tag.start <= i) {
      i = Math.max(i, tag.end)
      cursor.next++
      hadTag = true
      if (space === 'none') space = 'soft'
      continue
    }
    const ch = text[i] as string
    if (isSpace(ch)) {
      // A line break or a tag makes the whole run soft: it was layout, not a space the user typed.
      space = ch === '\n' || ch === '\r' || space === 'soft' ? 'soft' : 'hard'
      i++
      continue
    }
    const c = charAt(text, i)
    // Invisible format and control characters (zero-width joiners, BOM) are neither text nor space.
    if (/^[\p{Cc}\p{Cf}]$/u.test(c)) {
      i += c.length
      continue
    }
    // A tag left a space before closing punctuation: "Hi (laughing)." → "Hi."
    if (hadTag && CLOSING.has(c)) space = 'none'
    flush(c)
    out += c
    i += c.length
  }
  flush(right)
  return out
}

function split(gap: string): readonly [tail: string, head: string] {
  const first = gap.indexOf(' ')
  if (first >= 0) return [gap.slice(0, first), gap.slice(gap.lastIndexOf(' ') + 1)]
  for (let k = 0; k < gap.length; k++) if (OPENING.has(gap[k] as string)) return [gap.slice(0, k), gap.slice(k)]
  return [gap, '']
}

// The text's leading gap belongs wholly to the first chunk, its trailing gap to the last.
function gap(content: string, spoken: string, edge: 'start' | 'end' | 'inner'): Gap {
  const [contentTail, contentHead] = edge === 'start' ? ['', content.trim()]
    : edge === 'end' ? [content.trim(), ''] : split(content)
  const [spokenTail, spokenHead] = edge === 'start' ? ['', spoken.trim()]
    : edge === 'end' ? [spoken.trim(), ''] : split(spoken)
  return { content, spoken, contentTail, contentHead, spokenTail, spokenHead }
}

/** Builds the gaps once, so chunk lengths and texts are cheap to compute for any word range. */
export function buildLayout(text: string, units: readonly Unit[], tags: readonly Span[],
  spoken: readonly string[]): Layout {
  const cursor = { next: 0 }
  const gaps: Gap[] = []
  for (let i = 0; i <= units.length; i++) {
    const before = units[i - 1]
    const after = units[i]
    const from = before ? before.word.end : 0
    const to = after ? after.word.start : text.length
    const content = visibleGap(text, from, to, tags, cursor, before?.word.text.slice(-1) ?? '',
      after?.word.text[0] ?? '')
    let said = content
    // "etc." read as "et cetera" would lose the period that ended the sentence.
    const swallowed = before !== undefined && before.word.text.endsWith('.') && !spoken[i - 1]?.endsWith('.')
    if (swallowed && (before.breakAfter >= BREAK.sentence || !after) && !SENTENCE_END.has(content[0] ?? '')) {
      said = '.' + content
    }
    gaps.push(gap(content, said, i === 0 ? 'start' : after ? 'inner' : 'end'))
  }
  return { units, spoken, gaps }
}
