import type { AsrRawResult } from '../../neural/protocol.js'
import type { RecognizedWord } from '../types.js'

/** Tokens with their start times → words: a token starting with a space or `▁` starts a word. */
export function toWords(raw: AsrRawResult, seconds: number): RecognizedWord[] {
  const words: { word: string; start: number }[] = []
  raw.tokens.forEach((token, i) => {
    const start = raw.timestamps[i] ?? 0
    const fresh = /^[\s▁]/.test(token) || words.length === 0
    const text = token.replace(/^[\s▁]+/, '')
    if (fresh) words.push({ word: text, start })
    else words[words.length - 1]!.word += text
  })
  // A streaming model decodes the silence padded after the audio too: a token there starts at the audio's end.
  return words.filter((w) => w.word !== '').map((w, i, all) => ({
    word: w.word,
    start: Math.min(w.start, seconds),
    // A word ends where the next begins (CTC gives start times only), at most a second later.
    end: Math.min(all[i + 1]?.start ?? seconds, w.start + 1, seconds),
    confidence: 1,
  }))
}
