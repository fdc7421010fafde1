import { SILENCE_LEVEL } from '../silence.js'
import { textWords, type TextWord } from '../text-words.js'
import type { EngineWord } from '../types.js'

/**
 * Word times for a model that reports none (VITS/Piper, Kokoro, ZipVoice through the runtime, an upstream):
 * the text's phrases (split at punctuation) are put on the pauses the audio really has, then each phrase's
 * voiced span is shared among its words by letter count. When the audio has fewer pauses than the text has
 * phrase breaks, the whole voiced span is shared, with a pause's worth of letters at each break.
 * The fallback where forced alignment cannot run; see docs/decisions.md, "Word timing by forced alignment".
 */
export function estimateWords(text: string, samples: Float32Array, sampleRate: number): EngineWord[] {
  const words = textWords(text)
  if (words.length === 0) return []
  const runs = voicedRuns(samples, sampleRate)
  if (runs.length === 0) return spread(text, words, 0, 0)
  const phrases = splitPhrases(text, words)
  if (phrases.length > 1 && runs.length >= phrases.length) {
    // The longest pauses between voiced runs are the phrase breaks, in time order.
    const breaks = runs.slice(1).map((r, i) => ({ after: i, length: r.start - runs[i]!.end }))
      .sort((a, b) => b.length - a.length).slice(0, phrases.length - 1)
      .map((b) => b.after).sort((a, b) => a - b)
    let firstRun = 0
    return phrases.flatMap((phrase, k) => {
      const lastRun = k < breaks.length ? breaks[k]! : runs.length - 1
      const placed = spread(text, phrase, runs[firstRun]!.start, runs[lastRun]!.end)
      firstRun = lastRun + 1
      return placed
    })
  }
  return spread(text, words, runs[0]!.start, runs.at(-1)!.end)
}

/** A pause shorter than this is inside a phrase (stops, word joins), not a break. */
const MIN_PAUSE_SEC = 0.12
const FRAME_SEC = 0.01

/** Voiced stretches in seconds: 10 ms frames louder than 40 dB below the peak, joined across short pauses. */
export function voicedRuns(samples: Float32Array, sampleRate: number): { start: number; end: number }[] {
  let peak = 0
  for (const s of samples) peak = Math.max(peak, Math.abs(s))
  const level = Math.max(SILENCE_LEVEL, peak * 0.01)
  const frame = Math.max(1, Math.round(FRAME_SEC * sampleRate))
  const runs: { start: number; end: number }[] = []
  for (let at = 0; at < samples.length; at += frame) {
    let loud = false
    for (let i = at; i < Math.min(samples.length, at + frame); i++) if (Math.abs(samples[i]!) >= level) { loud = true; break }
    if (!loud) continue
    const start = at / sampleRate
    const end = Math.min(samples.length, at + frame) / sampleRate
    const last = runs.at(-1)
    if (last && start - last.end < MIN_PAUSE_SEC) last.end = end
    else runs.push({ start, end })
  }
  return runs
}

/** Groups of words between punctuation marks (`,` `.` `;` `:` `!` `?` and their CJK forms). */
function splitPhrases(text: string, words: readonly TextWord[]): TextWord[][] {
  const phrases: TextWord[][] = [[]]
  words.forEach((w, i) => {
    phrases.at(-1)!.push(w)
    if (i + 1 < words.length && breaksAfter(text, w, words[i + 1]!)) phrases.push([])
  })
  return phrases
}

const breaksAfter = (text: string, w: TextWord, next: TextWord) => /[.,;:!?。，；：！？]/.test(text.slice(w.end, next.start))

/** Shares [start, end] among the words by letters, with a pause's worth (2 letters) at each inner break. */
function spread(text: string, words: readonly TextWord[], start: number, end: number): EngineWord[] {
  const weights = words.map((w, i) => ({ letters: [...w.text].length + 1, gap: i + 1 < words.length && breaksAfter(text, w, words[i + 1]!) ? 2 : 0 }))
  const total = weights.reduce((n, w) => n + w.letters + w.gap, 0) - (weights.at(-1)?.gap ?? 0)
  const perUnit = (Math.max(start, end) - start) / Math.max(1, total)
  let at = start
  return words.map((w, i) => {
    const wordStart = at
    at += weights[i]!.letters * perUnit
    const word = { text: w.text, start: wordStart, end: at, charStart: w.start, charEnd: w.end }
    at += weights[i]!.gap * perUnit
    return word
  })
}
