import { charAt, isAlnum, isCjk, isDigit, isLetter, isSpace, isUpper, isWordChar, nextNonSpace } from './chars.js'
import { ABBREVIATIONS, NUMBER_ABBREVIATIONS } from './normalize/en-tables.js'

/** One word as the user wrote it: `text === original.slice(start, end)`. */
export interface Word {
  readonly text: string
  readonly start: number
  readonly end: number
  /** A single CJK character (CJK text has no spaces, so every character is a word). */
  readonly cjk: boolean
}

/** A span of the original text that is markup, not text (tags); words never cross one. */
export interface Span {
  readonly start: number
  readonly end: number
}

// Punctuation that stays inside a word when both neighbours qualify: "3.14", "1,250", "3:30", "km/h",
// "well-known", "don't", "10–20".
function keepsInside(mark: string, before: string, after: string): boolean {
  switch (mark) {
    case '.': case '/': return isAlnum(before) && isAlnum(after)
    case ',': case ':': case '：': case '–': return isDigit(before) && isDigit(after)
    case '-': case '‐': case '‑': return isWordChar(before) && (isAlnum(after) || after === '$')
    case "'": case '’': return isLetter(before) && isLetter(after)
    default: return false
  }
}

// A word may start with a sign or a decimal point: "-5", "−3", ".5", "-$5".
function startsWord(text: string, i: number, end: number): boolean {
  const ch = text[i] as string
  if (isWordChar(charAt(text, i))) return true
  if (i + 1 >= end) return false
  const next = text[i + 1] as string
  if (ch === '.') return isDigit(next)
  if (ch === '-' || ch === '−') return isDigit(next) || (next === '$' && isDigit(text[i + 2] ?? ''))
  return false
}

/** Whether the period right after `word` belongs to it ("Dr.", "e.g.", "U.S.", the initial in "J. Smith"). */
function keepsPeriod(word: string, text: string, after: number): boolean {
  const withPeriod = word + '.'
  if (NUMBER_ABBREVIATIONS.has(withPeriod)) return isDigit(nextNonSpace(text, after))
  if (ABBREVIATIONS.has(withPeriod)) return true
  if (/^(?:\p{L}\.)+\p{L}$/u.test(word)) return true
  // A lone capital before another capital is an initial; "I" and "A" are words too often.
  return /^\p{Lu}$/u.test(word) && word !== 'I' && word !== 'A' && isUpper(nextNonSpace(text, after))
}

// URLs are one word: their ':' and '//' would otherwise split them.
const URL = /(?:https?|ftp):\/\/[^\s]+|www\.[^\s]+/y
const URL_TRAILER = /[.,;:!?)\]}'"’”]+$/

/** Splits one run of non-space characters (no markup inside) into words. */
function scanRun(text: string, start: number, end: number, out: Word[]): void {
  let i = start
  while (i < end) {
    URL.lastIndex = i
    const url = URL.exec(text)
    if (url) {
      const whole = text.slice(i, Math.min(end, i + url[0].length)).replace(URL_TRAILER, '')
      out.push({ text: whole, start: i, end: i + whole.length, cjk: false })
      i += whole.length
      continue
    }
    const ch = charAt(text, i)
    if (isCjk(ch)) {
      out.push({ text: ch, start: i, end: i + ch.length, cjk: true })
      i += ch.length
      continue
    }
    if (!startsWord(text, i, end)) {
      i += ch.length
      continue
    }
    let j = i + ch.length
    while (j < end) {
      const c = charAt(text, j)
      if (isCjk(c)) break
      if (isWordChar(c)) {
        j += c.length
        continue
      }
      if (j + 1 < end && keepsInside(c, charAt(text, j - 1), charAt(text, j + 1))) {
        j += 1
        continue
      }
      break
    }
    if (text[j] === '.' && keepsPeriod(text.slice(i, j), text, j + 1)) j += 1
    out.push({ text: text.slice(i, j), start: i, end: j, cjk: false })
    i = j
  }
}

/**
 * Words of `text` with their offsets, skipping the markup `spans` (sorted, non-overlapping). Leading and
 * trailing punctuation is not part of a word, except where it belongs to one ("$5", "-3", "50%", "Dr.").
 */
export function splitWords(text: string, spans: readonly Span[]): Word[] {
  const words: Word[] = []
  let next = 0
  let i = 0
  while (i < text.length) {
    const span = spans[next]
    if (span && i >= span.start) {
      i = Math.max(i, span.end)
      next++
      continue
    }
    if (isSpace(text[i] as string)) {
      i++
      continue
    }
    const limit = span ? span.start : text.length
    let end = i
    while (end < limit && !isSpace(text[end] as string)) end++
    scanRun(text, i, end, words)
    i = end
  }
  return words
}
