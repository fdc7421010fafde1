/** Turning recognised words into phrases (segments) and tidy, sentence-cased text. */
import type { RecognizedWord } from '../engines/asr/types.js'

export interface PhraseOptions {
  /** A silence longer than this (seconds) between two words starts a new phrase. */
  readonly pauseSeconds?: number
  /** Phrases longer than this (seconds) are cut again at their longest inner pause. */
  readonly maxPhraseSeconds?: number
}

/** Splits time-ordered words into phrases at pauses. */
export function groupPhrases(
  words: readonly RecognizedWord[], options: PhraseOptions = {},
): RecognizedWord[][] {
  const { pauseSeconds = 0.3, maxPhraseSeconds = 15 } = options
  const phrases: RecognizedWord[][] = []
  let current: RecognizedWord[] = []
  for (const word of words) {
    const prev = current[current.length - 1]
    if (prev && word.start - prev.end > pauseSeconds) {
      phrases.push(current)
      current = []
    }
    current.push(word)
  }
  if (current.length > 0) phrases.push(current)
  return phrases.flatMap((p) => capLength(p, maxPhraseSeconds))
}

/** Long pause-free runs still get cut, at the widest gap between words, so segments stay readable. */
function capLength(words: RecognizedWord[], maxSeconds: number): RecognizedWord[][] {
  if (words.length < 2 || words[words.length - 1]!.end - words[0]!.start <= maxSeconds) return [words]
  let cut = Math.floor(words.length / 2)
  let widest = -Infinity
  for (let i = 1; i < words.length; i++) {
    const gap = words[i]!.start - words[i - 1]!.end
    // Only cuts that leave both sides a few words long; ties go to the cut nearest the middle.
    if (i < 3 || words.length - i < 3) continue
    const centred = -Math.abs(i - words.length / 2) * 1e-6
    if (gap + centred > widest) { widest = gap + centred; cut = i }
  }
  return [...capLength(words.slice(0, cut), maxSeconds), ...capLength(words.slice(cut), maxSeconds)]
}

const PRONOUN_I = /^i(?='|$)/

/** One phrase as a sentence: words spaced once, "i" → "I", first letter capitalised, final period. */
export function phraseText(words: readonly string[]): string {
  const text = words
    .map((w) => w.trim().replace(PRONOUN_I, 'I'))
    .filter((w) => w.length > 0)
    .join(' ')
  if (text.length === 0) return ''
  const cased = text.charAt(0).toUpperCase() + text.slice(1)
  return /[.!?]$/.test(cased) ? cased : `${cased}.`
}
