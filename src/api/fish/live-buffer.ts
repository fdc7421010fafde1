import { NATURAL_PAUSE_MS, parseTags, type TagSpan } from '../../text/index.js'
import type { TagDialect } from '../../text/types.js'

/**
 * Text arriving token by token over the live socket is spoken in natural units: everything up to the last
 * sentence end, or, when no sentence ends within `maxChars`, up to the last word boundary before it. Units
 * are synthesized separately, so markup whose scope crosses a cut is repeated at the start of the next unit:
 * the speaker tag always (it lasts until the next one), expression tags when the cut is inside a sentence
 * (they last until the sentence ends).
 */
const SENTENCE_END = /[.!?…]+["')\]”’]*\s+|[。！？]+["')\]”’」』]*\s*/g
const CLAUSE_OR_SENTENCE_END = /[.!?…,;:。！？，；：—–]["')\]”’」』]*$/
const ENDS_SENTENCE = /[.!?…。！？]["')\]”’」』]*$/

export class TextBuffer {
  private text = ''
  /** Markup that continues the state of the text taken so far. */
  private carry = ''
  private readonly maxChars: number
  private readonly dialect: TagDialect

  constructor(maxChars: number, dialect: TagDialect) {
    this.maxChars = maxChars
    this.dialect = dialect
  }

  get length(): number {
    return this.text.length
  }

  append(text: string): void {
    this.text += text
  }

  /** Removes and returns the complete units buffered so far, or '' when none is ready yet. */
  takeReady(): string {
    const tags = parseTags(this.text, this.dialect)
    const masked = mask(this.text, tags)
    let cut = 0
    // A sentence end at the very end of the buffer may still grow ("3." → "3.5"), so it needs a space after.
    for (const match of masked.matchAll(SENTENCE_END)) cut = match.index + match[0].length
    if (cut === 0 && this.text.length >= this.maxChars) {
      // The last space before the limit that is not inside a tag (`[very excited]`).
      let space = Math.min(this.maxChars, this.text.length - 1)
      while (space > 0 && !(/\s/.test(masked[space]!) && !tags.some((t) => t.start <= space && space < t.end))) space--
      cut = space > 0 ? space + 1 : this.text.length
    }
    return this.take(cut)
  }

  /** Removes and returns everything buffered. */
  takeAll(): string {
    return this.take(this.text.length)
  }

  private take(n: number): string {
    const out = this.text.slice(0, n)
    this.text = this.text.slice(n)
    if (out.trim() === '') return ''
    const unit = withCarry(this.carry, out, this.dialect)
    this.carry = carryAfter(unit, this.dialect)
    return unit
  }
}

/**
 * Words that usually begin a prosodic phrase, so a cut before one sounds like a natural breath. Words that
 * are as often objects (`that`, `you`, `it`) are left out: "let me check | that" would sound broken.
 */
const PHRASE_STARTS = new Set(
  ('and but or so because while when whenever if although though unless since until then which who whom ' +
    'whose where whether to for in on at with from about into onto over under after before during through ' +
    'without within between across against like than as i we they he she')
    .split(' '),
)
/** A head ends at its first clause end within this many words, else before a phrase-starting word. */
const MAX_HEAD_WORDS = 7
const MAX_UNPUNCTUATED_HEAD = 5
const MIN_REST_WORDS = 3

/**
 * Splits off the first natural phrase of `unit` so it can be synthesized (and heard) at once while the rest
 * is synthesized behind it: up to the first clause or sentence end within MAX_HEAD_WORDS words, else before a
 * word that usually starts a phrase ("and", "to", "we", …) after two to five words. Returns `[unit]` when no
 * such cut exists or the rest would be too short to be worth it. Markup in effect at the cut is repeated.
 */
export function splitFirstPhrase(unit: string, dialect: TagDialect): [string] | [string, string] {
  const masked = maskTags(unit, dialect)
  const words = [...masked.matchAll(/\S+/g)].map((m) => ({ start: m.index, end: m.index + m[0].length, text: m[0] }))
  let cutWord = -1
  for (let i = 0; i < Math.min(words.length, MAX_HEAD_WORDS); i++) {
    if (CLAUSE_OR_SENTENCE_END.test(words[i]!.text)) {
      cutWord = i + 1
      break
    }
  }
  if (cutWord < 0) {
    for (let k = 2; k <= Math.min(MAX_UNPUNCTUATED_HEAD, words.length - 1); k++) {
      const word = words[k]!.text.toLowerCase().replace(/^["'“‘(]+/, '')
      if (PHRASE_STARTS.has(word) && k >= 3) {
        cutWord = k
        break
      }
      if (PHRASE_STARTS.has(word) && cutWord < 0) cutWord = k
    }
  }
  if (cutWord < 1 || words.length - cutWord < MIN_REST_WORDS) return [unit]
  const cut = words[cutWord]!.start
  const head = unit.slice(0, cut)
  return [head, withCarry(carryAfter(head, dialect), unit.slice(cut), dialect)]
}

/** Silence that belongs after `unit` when more speech follows it, ms: the natural pause of its last punctuation. */
export function pauseAfterMs(unit: string, dialect: TagDialect): number {
  const end = maskTags(unit, dialect).trimEnd()
  if (ENDS_SENTENCE.test(end)) return NATURAL_PAUSE_MS[2]
  return CLAUSE_OR_SENTENCE_END.test(end) ? NATURAL_PAUSE_MS[1] : 0
}

/** `text` without its tags. */
export function plainText(text: string, dialect: TagDialect): string {
  return maskTags(text, dialect).replace(/\s+/g, ' ').trim()
}

/** `text` with every tag replaced by spaces of the same length, so offsets still match. */
function maskTags(text: string, dialect: TagDialect): string {
  return mask(text, parseTags(text, dialect))
}

function mask(text: string, tags: readonly TagSpan[]): string {
  let out = text
  for (const t of tags) out = out.slice(0, t.start) + ' '.repeat(t.end - t.start) + out.slice(t.end)
  return out
}

/** Markup that must open the next unit for it to sound as if `text` had continued. */
function carryAfter(text: string, dialect: TagDialect): string {
  const tags = parseTags(text, dialect)
  const speaker = tags.filter((t) => t.kind === 'speaker').at(-1)
  let out = speaker ? text.slice(speaker.start, speaker.end) : ''
  const masked = maskTags(text, dialect)
  if (ENDS_SENTENCE.test(masked.trimEnd())) return out
  // Expression tags last until the end of their sentence or the next tag: the last group in this sentence.
  let sentenceStart = 0
  for (const m of masked.matchAll(SENTENCE_END)) sentenceStart = m.index + m[0].length
  const group: TagSpan[] = []
  for (const t of tags) {
    if (t.start < sentenceStart || (t.kind !== 'expression' && t.kind !== 'unknown')) continue
    const prev = group.at(-1)
    if (prev && text.slice(prev.end, t.start).trim() !== '') group.length = 0
    group.push(t)
  }
  for (const t of group) out += text.slice(t.start, t.end)
  return out
}

/** `carry` + `text`, leaving out carried markup that `text` replaces by opening with its own. */
function withCarry(carry: string, text: string, dialect: TagDialect): string {
  if (carry === '') return text
  const tags = parseTags(text, dialect)
  const masked = mask(text, tags)
  const opening = tags.filter((t) => masked.slice(0, t.start).trim() === '')
  const own = new Set(opening.map(role))
  const kept = parseTags(carry, dialect)
    .filter((t) => !own.has(role(t)))
    .map((t) => carry.slice(t.start, t.end))
    .join('')
  return kept === '' ? text : `${kept} ${text.trimStart()}`
}

const role = (t: TagSpan): string =>
  t.kind === 'speaker' ? 'speaker' : t.kind === 'expression' || t.kind === 'unknown' ? 'expression' : t.kind
