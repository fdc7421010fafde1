import { normalizeWord, textWords, type TextWord } from './text-words.js'
import type { EngineWord } from './types.js'

/**
 * Maps the words an engine spoke back to the request text. Engines name words after normalizing them
 * (`Hello,` → `hello`, `25` → `twenty` `five`, letters spelled out), so words are matched by a small
 * monotonic alignment that may skip text words the engine did not speak and drop engine words it cannot
 * place. Each returned `EngineWord` is one word of the text; engine words that fall on the same text word
 * are merged into it.
 */

/** A word as the engine named it, with optional evidence of what it came from (festival's token name). */
export interface SpokenWord {
  readonly name: string
  readonly hint?: string
  readonly start: number
  readonly end: number
}

const NUMBER_WORDS = new Set(
  ('zero oh one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen ' +
    'seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred thousand million ' +
    'billion trillion point and minus first second third fourth fifth sixth seventh eighth ninth tenth twelfth ' +
    'twentieth thirtieth hundredth thousandth th st nd rd o clock percent dollars dollar cents')
    .split(' '),
)

const SKIP = 1 // a text word the engine did not speak
const DROP = 1.2 // an engine word that matches nothing
const DROP_SYMBOL = 0.3 // an engine word with no letters (a spoken symbol)
const CONTINUE = 0.05 // a further engine word on the same text word

function levenshtein(a: string, b: string): number {
  a = a.slice(0, 32)
  b = b.slice(0, 32)
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const cur = [i]
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
    }
    prev = cur
  }
  return prev[b.length]!
}

function matchCost(name: string, hint: string, word: string): number {
  if (!name && !hint) return 0.9
  if (name === word || (hint && hint === word)) return 0
  if (/\p{N}/u.test(word) && NUMBER_WORDS.has(name)) return 0.2
  if (hint && (word.includes(hint) || hint.includes(word))) return 0.25
  if (name && word.includes(name)) return name.length === 1 ? 0.35 : 0.3
  if (name && name.includes(word)) return 0.4
  const a = name || hint
  return 0.6 + (0.9 * levenshtein(a, word)) / Math.max(a.length, word.length, 1)
}

/** For each spoken word, the index of the text word it belongs to, or -1 when dropped. */
type Named = Pick<SpokenWord, 'name' | 'hint'>

export function alignToText(words: readonly TextWord[], spoken: readonly Named[]): number[] {
  const E = spoken.length
  const S = words.length
  if ((E + 1) * (S + 1) > 4_000_000) return greedyAlign(words, spoken)
  const names = spoken.map((w) => normalizeWord(w.name))
  const hints = spoken.map((w) => (w.hint === undefined ? '' : normalizeWord(w.hint)))
  const texts = words.map((w) => normalizeWord(w.text))
  // State (i, j, b): i spoken words placed, j text words passed, b = text word j-1 received a spoken word.
  const W = S + 1
  const cost = new Float64Array((E + 1) * W * 2).fill(Infinity)
  // Back pointers: move * 2 + previous b; moves 1 skip, 2 assign, 3 continue, 4 drop.
  const back = new Uint8Array((E + 1) * W * 2)
  const at = (i: number, j: number, b: number): number => (i * W + j) * 2 + b
  const relax = (to: number, c: number, code: number): void => {
    if (c < cost[to]!) {
      cost[to] = c
      back[to] = code
    }
  }
  cost[at(0, 0, 0)] = 0
  for (let i = 0; i <= E; i++) {
    const drop = i < E ? (names[i] || hints[i] ? DROP : DROP_SYMBOL) : 0
    for (let j = 0; j <= S; j++) {
      for (let b = 0; b < 2; b++) {
        const c = cost[at(i, j, b)]!
        if (c === Infinity) continue
        if (j < S) relax(at(i, j + 1, 0), c + SKIP, 2 + b)
        if (i === E) continue
        if (j < S) relax(at(i + 1, j + 1, 1), c + matchCost(names[i]!, hints[i]!, texts[j]!), 4 + b)
        if (b === 1) {
          relax(at(i + 1, j, 1), c + matchCost(names[i]!, hints[i]!, texts[j - 1]!) + CONTINUE, 6 + b)
        }
        relax(at(i + 1, j, b), c + drop, 8 + b)
      }
    }
  }
  const result = new Array<number>(E).fill(-1)
  let i = E
  let j = S
  let b = cost[at(E, S, 1)]! < cost[at(E, S, 0)]! ? 1 : 0
  while (i > 0 || j > 0) {
    const code = back[at(i, j, b)]!
    const move = code >> 1
    const prevB = code & 1
    if (move === 1) j--
    else if (move === 2) result[--i] = --j
    else if (move === 3) result[--i] = j - 1
    else i--
    b = prevB
  }
  return result
}

function greedyAlign(words: readonly TextWord[], spoken: readonly Named[]): number[] {
  let j = 0
  return spoken.map((w) => {
    const name = normalizeWord(w.hint ?? w.name)
    for (let k = j; k < Math.min(words.length, j + 8); k++) {
      if (matchCost(name, name, normalizeWord(words[k]!.text)) < 0.5) {
        j = k
        return k
      }
    }
    return -1
  })
}

/**
 * Turns timed engine words into `EngineWord`s over `text`: aligned, merged per text word, and with times made
 * monotonic and non-overlapping. `matchText` (same length as `text`) is what the engine actually read, when
 * the engine was given a transliterated copy.
 */
export function wordsFromSpoken(text: string, spoken: readonly SpokenWord[], matchText = text): EngineWord[] {
  const words = textWords(matchText)
  const index = alignToText(words, spoken)
  const out: EngineWord[] = []
  let last = -1
  for (let k = 0; k < spoken.length; k++) {
    const w = index[k]!
    if (w < 0) continue
    const s = spoken[k]!
    const tw = words[w]!
    if (w === last) {
      const prev = out[out.length - 1]!
      out[out.length - 1] = { ...prev, end: Math.max(prev.end, s.end) }
    } else {
      const { start, end } = s
      out.push({ text: text.slice(tw.start, tw.end), start, end, charStart: tw.start, charEnd: tw.end })
      last = w
    }
  }
  return monotonic(out)
}

/** Clamps each word to start at or after the previous word's end and to have end ≥ start. */
export function monotonic(words: readonly EngineWord[]): EngineWord[] {
  let floor = 0
  return words.map((w) => {
    const start = Math.max(w.start, floor)
    const end = Math.max(start, w.end)
    floor = end
    return start === w.start && end === w.end ? w : { ...w, start, end }
  })
}
