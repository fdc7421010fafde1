/**
 * Splits a request's text into pieces an engine can synthesize one at a time, so the first audio can be sent
 * after the first sentence instead of after the whole text. Offsets index the original text.
 */

export interface TextPiece {
  readonly text: string
  /** Index of `text[0]` in the original text (UTF-16 units). */
  readonly start: number
}

const SENTENCE_END = /[.!?…。！？]+["'”’»)\]]*(?=\s|$)|\n/gu
const ABBREVIATION = /(?:^|[\s(])(?:mr|mrs|ms|dr|st|jr|sr|prof|vs|etc|e\.g|i\.e|no|fig|approx|[a-z])\.$/iu
const SPEAKABLE = /[\p{L}\p{N}]/u

/** Sentences of at most `maxChars`; longer ones are cut at a clause mark or a space. Unspeakable pieces are dropped. */
export function splitSentences(text: string, maxChars = 300): TextPiece[] {
  const pieces: TextPiece[] = []
  let from = 0
  for (const m of text.matchAll(SENTENCE_END)) {
    const to = m.index + m[0].length
    if (m[0] !== '\n' && ABBREVIATION.test(text.slice(Math.max(from, m.index - 8), to))) continue
    if (m[0] !== '\n' && /^\s*[\p{Ll}\p{N}]/u.test(text.slice(to, to + 3))) continue
    cutLong(text, from, to, maxChars, pieces)
    from = to
  }
  cutLong(text, from, text.length, maxChars, pieces)
  return pieces
}

function cutLong(text: string, from: number, to: number, maxChars: number, out: TextPiece[]): void {
  while (to - from > maxChars) {
    const window = text.slice(from, from + maxChars)
    let cut = lastMatchEnd(window, /[,;:—–]\s/gu)
    if (cut < maxChars / 3) cut = lastMatchEnd(window, /\s/gu)
    if (cut < maxChars / 3) cut = maxChars
    // Never split a surrogate pair.
    const code = text.charCodeAt(from + cut - 1)
    if (code >= 0xd800 && code <= 0xdbff) cut--
    push(text, from, from + cut, out)
    from += cut
  }
  push(text, from, to, out)
}

function lastMatchEnd(s: string, re: RegExp): number {
  let end = -1
  for (const m of s.matchAll(re)) end = m.index + m[0].length
  return end
}

function push(text: string, from: number, to: number, out: TextPiece[]): void {
  while (from < to && /\s/u.test(text[from]!)) from++
  while (to > from && /\s/u.test(text[to - 1]!)) to--
  const piece = text.slice(from, to)
  if (SPEAKABLE.test(piece)) out.push({ text: piece, start: from })
}
