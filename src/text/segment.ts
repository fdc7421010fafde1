import { CLAUSE_END, isLetter, isUpper, SENTENCE_END } from './chars.js'
import { ABBREVIATIONS } from './normalize/en-tables.js'
import type { MarkupProsody } from './markup-marks.js'
import { combineTags, NEUTRAL_EXPRESSION, withMarkupProsody, type TagSpan } from './tags.js'
import type { Expression } from './types.js'
import type { Word } from './words.js'

export const BREAK = { none: 0, clause: 1, sentence: 2, paragraph: 3 } as const
export type BreakLevel = (typeof BREAK)[keyof typeof BREAK]

/** Silence after a chunk that ends at a break of this level (ms). */
export const NATURAL_PAUSE_MS: Readonly<Record<BreakLevel, number>> = { 0: 0, 1: 150, 2: 300, 3: 600 }

/** A word with everything the chunker needs to know about it. */
export interface Unit {
  readonly word: Word
  readonly expression: Expression
  readonly speaker: number
  /** Strongest punctuation break between this word and the next. */
  readonly breakAfter: BreakLevel
  /** Silence asked for by pause tags between this word and the next. */
  readonly tagPauseMs: number
  /** Index of the sentence the word belongs to. */
  readonly sentence: number
  /** Language set by markup (SSML `xml:lang`) around the word; undefined: detected. */
  readonly language?: string
}

interface State {
  speaker: number
  group: TagSpan[]
  expression: Expression
  /** Whether the last thing seen was a tag, so the next tag joins its group: `(sad)(whispering)`. */
  afterTag: boolean
  /** SSML prosody in effect; unlike tags, it lasts until its span ends, across sentences. */
  markup: MarkupProsody
  language: string | undefined
}

const NO_MARKUP: MarkupProsody = { rate: 1, pitchSemitones: 0, volumeDb: 0 }

function endSentence(state: State): void {
  state.group = []
  state.expression = NEUTRAL_EXPRESSION
  state.afterTag = false
}

function applyTag(state: State, tag: TagSpan): number {
  if (tag.kind === 'prosody') {
    state.markup = tag.prosody ?? NO_MARKUP
    return 0
  }
  if (tag.kind === 'language') {
    state.language = tag.language
    return 0
  }
  if (tag.kind === 'speaker') {
    state.speaker = tag.speaker
    endSentence(state)
    return 0
  }
  if (tag.kind === 'expression') {
    state.group = state.afterTag ? [...state.group, tag] : [tag]
    state.expression = combineTags(state.group)
  }
  state.afterTag = true
  return tag.kind === 'pause' ? tag.pauseMs : 0
}

/**
 * Walks the text between two words (or before the first / after the last): applies tags in order,
 * resets the expression where a sentence ends, and measures the punctuation break.
 */
function scanGap(text: string, from: number, to: number, tags: readonly TagSpan[], cursor: { next: number },
  state: State, nextWord: Word | undefined): { level: BreakLevel; pauseMs: number } {
  // A line break ends a sentence unless the next line continues in lower case (hard-wrapped prose).
  const first = nextWord?.text[0] ?? ''
  const lineEndsSentence = !(isLetter(first) && !isUpper(first))
  let level: BreakLevel = BREAK.none
  let pauseMs = 0
  let newlines = 0
  let i = from
  while (i < to) {
    const tag = tags[cursor.next]
    if (tag && tag.start <= i) {
      pauseMs += applyTag(state, tag)
      i = Math.max(i, tag.end)
      cursor.next++
      continue
    }
    const ch = text[i] as string
    if (ch === '\n') {
      newlines++
      if (newlines >= 2) level = BREAK.paragraph
      else if (lineEndsSentence) level = Math.max(level, BREAK.sentence) as BreakLevel
      if (level >= BREAK.sentence) endSentence(state)
    }
    if (/\s/.test(ch)) {
      i++
      continue
    }
    state.afterTag = false
    if (ch === '.' && text[i + 1] === '.') {
      while (text[i] === '.') i++
      level = Math.max(level, BREAK.clause) as BreakLevel
      continue
    }
    if (SENTENCE_END.has(ch)) {
      level = Math.max(level, BREAK.sentence) as BreakLevel
      endSentence(state)
    } else if (CLAUSE_END.has(ch)) {
      level = Math.max(level, BREAK.clause) as BreakLevel
    }
    i++
  }
  return { level, pauseMs }
}

/**
 * Whether an abbreviation before a capitalised word also ends the sentence: "etc. Then", and "St."/"Dr."
 * read as Street/Drive (after a name that is not sentence-initial, or after a number: "Main St. The").
 * `name` is the previous word unless it starts the sentence; `prev` is the previous word.
 */
function abbreviationEnds(word: string, name: string | undefined, prev: string | undefined): boolean {
  if (word === 'St.' || word === 'Dr.') return isUpper(name?.[0] ?? '') || /^\d/.test(prev ?? '')
  return ABBREVIATIONS.get(word)?.canEnd === true
}

/** Annotates every word with its expression, speaker, break and pause; tags before the first word apply. */
export function segment(text: string, words: readonly Word[], tags: readonly TagSpan[]): Unit[] {
  const state: State = { speaker: 0, group: [], expression: NEUTRAL_EXPRESSION, afterTag: false, markup: NO_MARKUP, language: undefined }
  const cursor = { next: 0 }
  const first = words[0]
  if (!first) return []
  // Tags before the first word set its expression; a leading pause has nothing to follow, so it is dropped.
  scanGap(text, 0, first.start, tags, cursor, state, first)
  const units: Unit[] = []
  let sentence = 0
  let sentenceStart = 0
  for (let k = 0; k < words.length; k++) {
    const word = words[k] as Word
    const next = words[k + 1]
    const { speaker, language } = state
    const expression = withMarkupProsody(state.expression, state.markup)
    const abbrEnds = next !== undefined && isUpper(next.text[0] ?? '')
      && abbreviationEnds(word.text, k > sentenceStart + 1 ? words[k - 1]?.text : undefined,
        k > sentenceStart ? words[k - 1]?.text : undefined)
    state.afterTag = false
    if (abbrEnds) endSentence(state)
    const gap = scanGap(text, word.end, next ? next.start : text.length, tags, cursor, state, next)
    const breakAfter = abbrEnds ? (Math.max(gap.level, BREAK.sentence) as BreakLevel) : gap.level
    units.push({ word, expression, speaker, breakAfter, tagPauseMs: gap.pauseMs, sentence, ...(language && { language }) })
    if (breakAfter >= BREAK.sentence) {
      sentence++
      sentenceStart = k + 1
    }
  }
  return units
}
