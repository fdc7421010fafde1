import { detectAll } from 'tinyld'
import { FUNCTION_WORDS, functionWordHits } from './function-words.js'

/**
 * Why a language was chosen, for clients to see (`x-parla-language` header, SSE/WS metadata):
 * `script` — the writing system decides (Han, kana, Hangul, Cyrillic…); `statistics` — the letter statistics
 * are confident enough to leave the default; `default` — the text is too short, or English words, numbers and
 * names leave no confident case for another language; `voice` — the chosen voice speaks only this language;
 * `session` — a live session's language, decided on all its text so far; `markup` — the text says so (SSML
 * `xml:lang`).
 */
export type LanguageReason = 'script' | 'statistics' | 'default' | 'voice' | 'session' | 'markup'

export interface LanguageDecision {
  readonly language: string
  /**
   * 0..1: how sure the decision is: the share of the script, or the detector's score for the chosen language;
   * for `default`, one minus the strongest other language's score.
   */
  readonly confidence: number
  readonly reason: LanguageReason
}

/** Below this many words of letters (numbers and names removed) no text leaves the default language. */
const MIN_WORDS = 3
/** tinyld scores real sentences 0.12–1 for their language and < 0.1 when it is guessing between many. */
const CONFIDENT = 0.12
/** The winner must beat the default language by this factor. */
const MARGIN = 2.5
/** English function words this share of the words make a sentence English whatever the statistics say. */
const ENGLISH_SHARE = 0.2
// Only words that are not also common words of the other Latin-script languages: "a", "in", "on", "no", "so",
// "was", "will", "also", "is", "me", "do", "an", "as" are French, Spanish, German, Dutch or Italian words too.
const ENGLISH_FUNCTION_WORDS: ReadonlySet<string> = new Set([
  'the', 'and', 'of', 'to', 'at', 'for', 'with', 'from', 'by', 'are', 'were', 'be', 'been', 'has', 'have', 'had',
  'it', "it's", 'its', 'this', 'that', 'these', 'those', 'you', 'your', 'we', 'our', 'they', 'their', 'he', 'his',
  'she', 'her', 'i', 'my', 'not', "don't", 'what', 'which', 'who', 'would', 'can', 'could', 'should', 'or', 'but',
  'if', 'does', 'did', 'than', 'then', 'there', 'here', 'how', 'why', 'when', 'where', 'all', 'some', 'yes', 'up',
  'out', 'into', 'over', 'let', 'please', 'just', 'about', 'after', 'before', 'more', 'most', 'very', 'too',
  'only', 'off', 'him',
])
/**
 * When the detector is unsure, another language's function words at least this share of the words (and at
 * least `MIN_FOREIGN` of them, and twice the English ones) decide a sentence: "El gato ha cazado un
 * ratón." is Spanish to any reader though its letter statistics are too few to say so.
 */
const FOREIGN_SHARE = 0.25
/** English words that other languages write too: they do not make a sentence English, but count against a foreign one. */
const ENGLISH_SHARED_WORDS: ReadonlySet<string> = new Set([
  'a', 'an', 'in', 'on', 'is', 'as', 'was', 'will', 'so', 'no', 'do', 'me', 'also', 'die', 'man', 'son', 'con',
  'come', 'pour', 'plus', 'war', 'hat', 'am',
])
const MIN_FOREIGN = 2
const LATIN_WORD = /^[\p{Script=Latin}\p{M}'’-]+$/u

interface Words {
  /** Words of letters only (numbers, codes and acronyms left out). */
  readonly all: readonly string[]
  /** The same without capitalised words inside a sentence (names: "Lincoln", "Gettysburg"). */
  readonly common: readonly string[]
}

/** Numbers and names say nothing about the language; detectors read them as Finnish or Tagalog. */
function wordsOf(text: string): Words {
  const all: string[] = []
  const common: string[] = []
  let sentenceStart = true
  for (const token of text.split(/\s+/)) {
    const word = token.replace(/^[^\p{L}]+|[^\p{L}]+$/gu, '')
    // Acronyms ("FAQ", "PhD") say as little as names.
    if (word !== '' && /^[\p{L}\p{M}'’-]+$/u.test(word) && !/\p{Lu}.*\p{Lu}/u.test(word)) {
      all.push(word)
      if (sentenceStart || !/^\p{Lu}/u.test(word)) common.push(word)
    }
    if (token !== '') sentenceStart = /[.!?:;]["')\]]*$/.test(token)
  }
  return { all, common }
}

/**
 * Language of Latin-script (or other alphabetic) text that is not decided by script: `fallback` unless the text
 * confidently is another language. Numbers, names and short phrases never move it.
 */
export function decideByStatistics(text: string, fallback: string): LanguageDecision {
  const { all: words, common } = wordsOf(text)
  const stay = (confidence: number): LanguageDecision => ({ language: fallback, confidence, reason: 'default' })
  const latin = words.every((w) => LATIN_WORD.test(w))
  if (latin && words.length < MIN_WORDS) return stay(1)
  if (latin && fallback === 'en') {
    const english = words.filter((w) => ENGLISH_FUNCTION_WORDS.has(w.toLowerCase().replace('’', "'"))).length
    if (english > 0 && english >= words.length * ENGLISH_SHARE) return stay(Math.min(1, 0.5 + english / words.length))
  }
  const ranked = detectAll((common.length >= MIN_WORDS ? common : words).join(' ')).map((r) => ({ lang: r.lang.toLowerCase().split(/[-_]/)[0]!, accuracy: r.accuracy }))
  const top = ranked[0]
  // Other alphabets (Cyrillic, Greek, Arabic…) cannot be the Latin-script default: the detector decides.
  if (top && !latin && top.lang !== fallback) return { language: top.lang, confidence: top.accuracy, reason: 'script' }
  const mine = ranked.find((r) => r.lang === fallback)?.accuracy ?? 0
  if (top && top.lang !== fallback && top.accuracy >= CONFIDENT && top.accuracy >= mine * MARGIN) {
    return { language: top.lang, confidence: top.accuracy, reason: 'statistics' }
  }
  const byWords = latin ? byFunctionWords(common.length >= MIN_WORDS ? common : words, text, fallback, ranked) : undefined
  if (byWords) return byWords
  if (!top) return stay(0.5)
  // Staying is as sure as the strongest other language is weak: tinyld's own score for the fallback is tiny on
  // short text ("Lincoln delivered the Gettysburg Address in 1863." scores 0.05 for English), which says the
  // detector knows little, not that another language is likely.
  return stay(1 - (ranked.find((r) => r.lang !== fallback)?.accuracy ?? 0))
}

/** The language whose function words make up the sentence (see `FOREIGN_SHARE`); ties go to the detector's order. */
function byFunctionWords(words: readonly string[], text: string, fallback: string, ranked: readonly { lang: string }[]): LanguageDecision | undefined {
  const english = (w: string) => ENGLISH_FUNCTION_WORDS.has(w.toLowerCase()) || ENGLISH_SHARED_WORDS.has(w.toLowerCase())
  const own = fallback === 'en' ? words.filter(english).length : functionWordHits(words, fallback, text)
  let best: string[] = []
  let most = 0
  for (const language of Object.keys(FUNCTION_WORDS)) {
    if (language === fallback) continue
    const hits = functionWordHits(words, language, text)
    if (hits > most) [best, most] = [[language], hits]
    else if (hits === most && hits > 0) best.push(language)
  }
  if (most < MIN_FOREIGN || most < words.length * FOREIGN_SHARE || most < own * 2) return undefined
  const language = best.length === 1 ? best[0] : ranked.find((r) => best.includes(r.lang))?.lang
  return language === undefined ? undefined : { language, confidence: Math.min(1, most / words.length), reason: 'statistics' }
}
