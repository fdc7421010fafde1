import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import kuromoji from 'kuromoji'
import { SpeechError } from '../../../errors.js'

/** Kanji (CJK ideographs and the iteration mark 々): eSpeak NG's Japanese voice reads only kana. */
const KANJI = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff々]/

let tokenizer: Promise<kuromoji.Tokenizer<kuromoji.IpadicFeatures>> | undefined

/**
 * kuromoji with the IPADIC dictionary that ships in its npm package, built on first use: it costs about a
 * second and 100 MB, which a server that never speaks Japanese kanji should not pay at start-up.
 */
function loadTokenizer(): Promise<kuromoji.Tokenizer<kuromoji.IpadicFeatures>> {
  tokenizer ??= new Promise((resolve, reject) => {
    const dicPath = join(dirname(createRequire(import.meta.url).resolve('kuromoji/package.json')), 'dict')
    kuromoji.builder({ dicPath }).build((err, built) => {
      if (err) {
        tokenizer = undefined
        reject(new SpeechError('unavailable', `[espeak-ng] cannot load kuromoji's dictionary from ${dicPath}; reinstall npm packages`, { cause: err }))
      } else resolve(built)
    })
  })
  return tokenizer
}

export interface KanaText {
  /** The text with every word written in kanji replaced by its pronunciation in katakana. */
  readonly text: string
  /** For each UTF-16 index of `text` (and its end), the UTF-16 offset in the original it comes from. */
  readonly toOriginal: readonly number[]
}

export const hasKanji = (text: string): boolean => KANJI.test(text)

/**
 * Japanese text as eSpeak NG can read it: words with kanji become their dictionary pronunciation ("東京" → "トーキョー"),
 * each reading pointing back at its word so word timings still land on what the user wrote.
 */
export async function toKana(text: string): Promise<KanaText> {
  const tokens = (await loadTokenizer()).tokenize(text)
  let out = ''
  const toOriginal: number[] = []
  for (const token of tokens) {
    const start = token.word_position - 1
    const reading = token.pronunciation ?? token.reading
    const spoken = KANJI.test(token.surface_form) && reading && reading !== '*' ? reading : token.surface_form
    for (let i = 0; i < spoken.length; i++) {
      toOriginal.push(spoken === token.surface_form ? start + i : start)
    }
    out += spoken
  }
  toOriginal.push(text.length)
  return { text: out, toOriginal }
}
