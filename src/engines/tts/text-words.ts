/** The words of a request text, as the word aligners see them. */

export interface TextWord {
  readonly text: string
  readonly start: number
  readonly end: number
}

// Letters/digits with inner apostrophes or hyphens; digit groups keep their separators (`3.5`, `10:30`).
const WORD = /[\p{L}\p{N}\p{M}]+(?:(?:['’-]|(?<=\p{N})[.,:](?=\p{N}))[\p{L}\p{N}\p{M}]+)*/gu

export function textWords(text: string): TextWord[] {
  return [...text.matchAll(WORD)].map((m) => ({ text: m[0], start: m.index, end: m.index + m[0].length }))
}

export function normalizeWord(s: string): string {
  return s.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().replace(/[^\p{L}\p{N}]/gu, '')
}

/**
 * For engines that report where in the text each word is (eSpeak NG): widens a character range to the text
 * words it touches, so a word the engine reported in two parts (`25` as `2`+`5`) maps to one text word.
 * A range that touches no word (an emoji the engine read out) is kept as it is, minus surrounding spaces,
 * with `inWord` false. Returns null for a range of spaces.
 */
export function snapRange(
  text: string,
  words: readonly TextWord[],
  start: number,
  end: number,
): { start: number; end: number; inWord: boolean } | null {
  if (end <= start) end = Math.min(text.length, start + 1)
  let a = -1
  let b = -1
  for (const w of words) {
    if (w.end <= start) continue
    if (w.start >= end) break
    if (a < 0) a = w.start
    b = w.end
  }
  if (a >= 0) return { start: a, end: b, inWord: true }
  a = start
  b = end
  while (a < b && /\s/u.test(text[a]!)) a++
  while (b > a && /\s/u.test(text[b - 1]!)) b--
  return b > a ? { start: a, end: b, inWord: false } : null
}
