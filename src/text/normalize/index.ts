import { normalizeEnglish } from './en.js'
import { normalizeChinese } from './zh.js'

/** Neighbouring words of the same sentence (undefined at its edges). */
export interface NormalizeContext {
  readonly prev?: string
  readonly prev2?: string
  readonly next?: string
}

/** Languages with a normalizer; text in any other language is passed through as written. */
export const NORMALIZED_LANGUAGES: ReadonlySet<string> = new Set(['en', 'zh'])

/** Spoken form of one written word in `language`; never empty (falls back to the word). */
export function normalizeWord(word: string, language: string, ctx: NormalizeContext): string {
  let spoken = word
  if (language === 'en') spoken = normalizeEnglish(word, ctx)
  else if (language === 'zh') spoken = normalizeChinese(word, ctx)
  return spoken === '' ? word : spoken
}
