import { detectAll } from 'tinyld'

/** Text sampled for statistical detection: enough to decide, cheap enough for the 5 ms budget. */
const SAMPLE_CHARS = 400
/** Below this many letters tinyld guesses; the preferred language is the safer answer. */
const MIN_LETTERS = 4
/** tinyld often ranks the right language a close second on short text ("I paid on." → et 0.18, en 0.17). */
const TIE_RATIO = 0.75
/** tinyld's accuracy below which it is guessing; confident answers on real text are 0.6–1. */
const UNSURE = 0.5
const LATIN_ONLY = /^[\p{Script=Latin}\p{M}\s'’-]*$/u

/** `zh-CN` → `zh`, `EN` → `en`; empty → `en`. */
export function normalizeLanguageCode(code: string): string {
  const primary = code.trim().toLowerCase().split(/[-_]/)[0] ?? ''
  return primary === '' ? 'en' : primary
}

/**
 * Language decided by script alone, for text where statistics are unreliable or slow: Han → `zh`,
 * any kana → `ja`, Hangul → `ko`. Undefined when the text is not mostly CJK.
 */
export function scriptLanguage(text: string): string | undefined {
  let han = 0
  let kana = 0
  let hangul = 0
  let letters = 0
  const end = Math.min(text.length, SAMPLE_CHARS)
  for (let i = 0; i < end; i++) {
    const c = text.charCodeAt(i)
    if (c >= 0x4e00 && c <= 0x9fff) han++
    else if (c >= 0x3400 && c <= 0x4dbf) han++
    else if (c >= 0x3040 && c <= 0x30ff) kana++
    else if ((c >= 0xac00 && c <= 0xd7af) || (c >= 0x1100 && c <= 0x11ff)) hangul++
    else if (c < 0x80 ? (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7a : c >= 0xc0 && c !== 0xd7 && c !== 0xf7) {
      letters++
    }
  }
  const total = han + kana + hangul + letters
  if (total === 0) return undefined
  if (kana > 0 && (kana + han) * 10 >= total * 3) return 'ja'
  if (hangul * 10 >= total * 3) return 'ko'
  if (han * 10 >= total * 3) return 'zh'
  return undefined
}

/**
 * Language of `text` as a lower-case code: CJK by script, everything else by tinyld on a sample of the
 * letters. `preferred` (default English) breaks near-ties and answers for text too short to decide. Given
 * (the languages of the voice the caller chose), it also wins over tinyld's unsure guesses on short
 * Latin-script text, so "Let me check." stays English for an English voice.
 */
export function detectLanguage(text: string, preferred?: readonly string[]): string {
  const byScript = scriptLanguage(text)
  if (byScript) return byScript
  const sample = text.slice(0, SAMPLE_CHARS).replace(/[^\p{L}\p{M}\s'’-]+/gu, ' ').replace(/\s+/g, ' ').trim()
  const prefer = preferred && preferred.length > 0 ? preferred.map(normalizeLanguageCode) : ['en']
  if (sample.replace(/[^\p{L}]/gu, '').length < MIN_LETTERS) return prefer[0]!
  const ranked = detectAll(sample).map((r) => ({ lang: normalizeLanguageCode(r.lang), accuracy: r.accuracy }))
  const top = ranked[0]
  if (!top) return prefer[0]!
  if (prefer.includes(top.lang)) return top.lang
  const close = ranked.find((r) => prefer.includes(r.lang) && r.accuracy >= top.accuracy * TIE_RATIO)
  if (close) return close.lang
  // On a few Latin-script words tinyld guesses ("Let me check." → es 0.1); the voice the caller chose says more.
  if (preferred && preferred.length > 0 && top.accuracy < UNSURE && LATIN_ONLY.test(sample)) return prefer[0]!
  return top.lang
}
