import { splitWords } from './words.js'

/**
 * The operator's pronunciation lexicon: written words and how to say them ("nginx" → "engine x", "Parla" →
 * "Parr la"), for names, brands and jargon that no engine's lexicon knows. It applies before normalization and
 * whether or not a request asks for normalization: it is how the server says a word, not a reading of a number.
 * A key in lower case matches the word in any capitalisation; a key with a capital matches only as written, so
 * "US" (the country) can be said otherwise than "us".
 */
export interface Pronunciations {
  /** How to say `word` (one word as the text pipeline splits it), or undefined when the lexicon has no entry. */
  say(word: string): string | undefined
  readonly size: number
}

/** More entries than this is not a lexicon of exceptions but a dictionary; refused so a wrong file shows. */
const MAX_ENTRIES = 100_000
/** Longest spoken form of one word. */
const MAX_SAY_LENGTH = 200

export const NO_PRONUNCIATIONS: Pronunciations = { say: () => undefined, size: 0 }

/**
 * The lexicon in `json` (an object of word → spoken form), or an Error naming `source` and the first entry to
 * fix. Keys are single words: the text pipeline matches word by word.
 */
export function parsePronunciations(json: unknown, source: string): Pronunciations {
  const problem = (what: string) => new Error(`pronunciations in ${source}: ${what}`)
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw problem('expected one JSON object of word → how to say it, e.g. {"nginx": "engine x"}')
  }
  const entries = Object.entries(json as Record<string, unknown>)
  if (entries.length > MAX_ENTRIES) throw problem(`${entries.length} entries; at most ${MAX_ENTRIES}`)
  const exact = new Map<string, string>()
  const anyCase = new Map<string, string>()
  for (const [word, say] of entries) {
    // A key the pipeline reads as other words ("Wi-Fi!" is the word "Wi-Fi") would never match: say so now.
    const read = splitWords(word, []).map((w) => w.text)
    if (read.length !== 1 || read[0] !== word) {
      const as = read.length === 0 ? 'no word at all' : read.map((w) => `"${w}"`).join(' ')
      throw problem(`"${word}" is not one word as the text is read (it reads ${as}); entries are single words as written`)
    }
    if (typeof say !== 'string' || say.trim() === '') throw problem(`"${word}" needs a non-empty string to say`)
    if (say.length > MAX_SAY_LENGTH) throw problem(`"${word}" is said in ${say.length} characters; at most ${MAX_SAY_LENGTH}`)
    const spoken = say.trim().replace(/\s+/gu, ' ')
    if (word === word.toLowerCase()) anyCase.set(word, spoken)
    else exact.set(word, spoken)
  }
  return {
    say: (word) => exact.get(word) ?? anyCase.get(word.toLowerCase()),
    size: exact.size + anyCase.size,
  }
}
