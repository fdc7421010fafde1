import type { WordAligner } from '../../asr/types.js'
import { textWords } from '../text-words.js'
import type { EngineWord } from '../types.js'
import { estimateWords } from './words.js'

/**
 * Word times for an engine that reports none (neural models, an upstream): the audio aligned with the
 * text's words where `aligner` can (English dictionary words; a hyphenated word is aligned by its parts),
 * else, and whenever alignment fails, the pause-based estimate of words.ts. An abort rejects.
 */
export async function timeWords(
  text: string, samples: Float32Array, sampleRate: number, aligner: WordAligner | undefined, signal?: AbortSignal,
): Promise<EngineWord[]> {
  const words = textWords(text)
  if (words.length === 0) return []
  const parts = words.map((w) => dictionaryParts(w.text))
  if (!aligner || samples.length === 0 || parts.some((p) => p === undefined)) return estimateWords(text, samples, sampleRate)
  let times: Awaited<ReturnType<WordAligner['align']>>
  try {
    times = await aligner.align(samples, sampleRate, parts.flatMap((p) => p!), signal)
  } catch {
    if (signal?.aborted) throw signal.reason
    // A word out of the dictionary, audio that does not say the text: the estimate still holds.
    return estimateWords(text, samples, sampleRate)
  }
  let at = 0
  return words.map((w, i) => {
    const first = times[at]!
    at += parts[i]!.length
    return { text: w.text, start: first.start, end: times[at - 1]!.end, charStart: w.start, charEnd: w.end }
  })
}

/** `Well-known` → `well`, `known`; undefined for what no English dictionary holds (digits, other scripts). */
function dictionaryParts(word: string): string[] | undefined {
  const parts = word.toLowerCase().replace(/’/g, '\'').split('-').filter(Boolean)
  return parts.length > 0 && parts.every((p) => /^[a-z]+(?:'[a-z]+)*$/.test(p)) ? parts : undefined
}
