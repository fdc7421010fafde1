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
  const loud = loudFrames(samples, sampleRate)
  let at = 0
  return words.map((w, i) => {
    const first = times[at]!
    at += parts[i]!.length
    return { text: w.text, ...ontoSound(first.start, times[at - 1]!.end, loud), charStart: w.start, charEnd: w.end }
  })
}

const FRAME_SEC = 0.01

/** Per 10 ms frame: louder than 40 dB below the peak (as words.ts counts voiced audio). */
function loudFrames(samples: Float32Array, sampleRate: number): boolean[] {
  let peak = 0
  for (const s of samples) peak = Math.max(peak, Math.abs(s))
  const frame = Math.max(1, Math.round(FRAME_SEC * sampleRate))
  const out: boolean[] = []
  for (let at = 0; at < samples.length; at += frame) {
    let loud = false
    for (let i = at; i < Math.min(samples.length, at + frame) && !loud; i++) loud = Math.abs(samples[i]!) >= peak * 0.01
    out.push(loud)
  }
  return out
}

/**
 * The aligner gives a pause to a word next to it (the leading silence to the first word, a breath to the
 * word after it): a word's edges move inward past silent frames, keeping at least one frame.
 */
function ontoSound(start: number, end: number, loud: readonly boolean[]): { start: number; end: number } {
  let a = Math.floor(start / FRAME_SEC)
  let b = Math.min(loud.length, Math.ceil(end / FRAME_SEC)) - 1
  while (a < b && !loud[a]) a++
  while (b > a && !loud[b]) b--
  if (a >= b) return { start, end }
  return { start: Math.max(start, a * FRAME_SEC), end: Math.min(end, (b + 1) * FRAME_SEC) }
}

/** `Well-known` → `well`, `known`; undefined for what no English dictionary holds (digits, other scripts). */
function dictionaryParts(word: string): string[] | undefined {
  const parts = word.toLowerCase().replace(/’/g, '\'').split('-').filter(Boolean)
  return parts.length > 0 && parts.every((p) => /^[a-z]+(?:'[a-z]+)*$/.test(p)) ? parts : undefined
}
