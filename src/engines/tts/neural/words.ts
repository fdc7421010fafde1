import { firstLoud, lastLoud } from '../silence.js'
import { textWords } from '../text-words.js'
import type { EngineWord } from '../types.js'

/**
 * Word times for a model that reports none (VITS/Piper, Kokoro, ZipVoice through the runtime): the voiced
 * span of the audio is shared among the words by their letter counts, with gaps at punctuation. An estimate
 * that keeps SSE alignments on speech and in order.
 */
export function estimateWords(text: string, samples: Float32Array, sampleRate: number): EngineWord[] {
  const words = textWords(text)
  if (words.length === 0) return []
  const first = firstLoud(samples)
  const last = lastLoud(samples)
  const start = first / sampleRate
  const end = Math.max(start, last / sampleRate)
  // Weight: letters, plus a pause's worth after punctuation.
  const weights = words.map((w, i) => {
    const gap = i + 1 < words.length && /[.,;:!?]/.test(text.slice(w.end, words[i + 1]!.start)) ? 2 : 0
    return { letters: [...w.text].length + 1, gap }
  })
  const total = weights.reduce((n, w) => n + w.letters + w.gap, 0) - (weights.at(-1)?.gap ?? 0)
  const perUnit = (end - start) / Math.max(1, total)
  let at = start
  return words.map((w, i) => {
    const wordStart = at
    at += weights[i]!.letters * perUnit
    const word = { text: w.text, start: wordStart, end: at, charStart: w.start, charEnd: w.end }
    at += weights[i]!.gap * perUnit
    return word
  })
}
