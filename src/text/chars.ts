/** Character classes shared by the word splitter, the segmenter and the renderer. */

// Han, kana, CJK radicals and compatibility ideographs: each character is a word of its own.
const CJK = new RegExp('^(?:[\\u2E80-\\u2FDF\\u3005-\\u3007\\u3021-\\u3029\\u3040-\\u309F\\u30A0-\\u30FA'
  + '\\u30FC-\\u30FF\\u3400-\\u4DBF\\u4E00-\\u9FFF\\uF900-\\uFAFF]|[\\u{20000}-\\u{3134F}])$', 'u')
// Letters, digits, marks and symbols ($ € ° + = emoji), plus the few punctuation marks that are words.
const WORD = /^[\p{L}\p{N}\p{M}\p{S}%&@#‰′″％]$/u
const SPACE = /^\s$/u
const ALNUM = /^[\p{L}\p{N}]$/u
const DIGIT = /^[0-9]$/
const LETTER = /^\p{L}$/u
const UPPER = /^\p{Lu}$/u

export const isCjk = (ch: string): boolean => CJK.test(ch)
export const isWordChar = (ch: string): boolean => WORD.test(ch)
export const isSpace = (ch: string): boolean => SPACE.test(ch)
export const isAlnum = (ch: string): boolean => ALNUM.test(ch)
export const isDigit = (ch: string): boolean => DIGIT.test(ch)
export const isLetter = (ch: string): boolean => LETTER.test(ch)
export const isUpper = (ch: string): boolean => UPPER.test(ch)

/** Ends a sentence (latin and CJK); a run of them still ends one sentence. */
export const SENTENCE_END = new Set(['.', '!', '?', '。', '！', '？', '‼', '⁇', '⁈', '⁉', '؟', '．'])
/** Ends a clause. Ellipses count here: "the rent… the rent" hesitates, it does not end the sentence. */
export const CLAUSE_END = new Set([
  ',', ';', ':', '—', '–', '-', '―', '…', '、', '，', '；', '：', '(', ')', '（', '）', '[', ']', '«', '»', '‧',
])
/** Punctuation that opens something and so belongs to the following word's chunk. */
export const OPENING = new Set(['(', '[', '{', '“', '‘', '«', '‹', '¿', '¡', '「', '『', '《', '〈', '（', '【', '〔'])

/** The character (full code point) at `i`, or '' past the end. */
export function charAt(text: string, i: number): string {
  const code = text.codePointAt(i)
  return code === undefined ? '' : String.fromCodePoint(code)
}

/** First character at or after `i` that is not whitespace, or ''. */
export function nextNonSpace(text: string, i: number): string {
  for (let j = i; j < text.length; j++) {
    const ch = text[j] as string
    if (!isSpace(ch)) return charAt(text, j)
  }
  return ''
}
