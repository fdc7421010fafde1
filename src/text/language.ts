import { decideByStatistics, type LanguageDecision } from './language-decision.js'

/** Text sampled for statistical detection: enough to decide, cheap enough for the 5 ms budget. */
const SAMPLE_CHARS = 400

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
 * Language of `text` with its confidence and reason: CJK by script, other alphabets by the detector, Latin
 * script stays `fallback` (the server's default language, or the chosen voice's) unless the text confidently
 * is another language (see language-decision.ts).
 */
export function decideLanguage(text: string, fallback = 'en'): LanguageDecision {
  const sample = text.slice(0, SAMPLE_CHARS)
  const byScript = scriptLanguage(sample)
  if (byScript) return { language: byScript, confidence: 1, reason: 'script' }
  return decideByStatistics(sample, normalizeLanguageCode(fallback))
}
