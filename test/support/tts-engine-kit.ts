/** Shared checks for the engine tests (not a test file itself). */
import { expect } from 'vitest'
import { concatSamples, rms } from '../../src/audio/signal.js'
import { voiceSampleRate, type EngineWord, type SynthesisRequest, type TtsEngine } from '../../src/engines/tts/types.js'

export interface Collected {
  readonly samples: Float32Array
  readonly words: readonly EngineWord[]
  readonly chunks: number
  readonly duration: number
  /** The rate the engine gave this voice's audio at. */
  readonly sampleRate: number
}

export async function collect(engine: TtsEngine, request: SynthesisRequest, signal?: AbortSignal): Promise<Collected> {
  const parts: Float32Array[] = []
  const words: EngineWord[] = []
  for await (const chunk of engine.synthesize(request, signal ? { signal } : {})) {
    parts.push(chunk.samples)
    words.push(...chunk.words)
  }
  const samples = concatSamples(parts)
  const sampleRate = voiceSampleRate(engine, request.voice)
  return { samples, words, chunks: parts.length, duration: samples.length / sampleRate, sampleRate }
}

/** Ten words; the expected words in order. */
export const SENTENCE = 'The quick brown fox jumps over the lazy dog near home.'
export const SENTENCE_WORDS = ['The', 'quick', 'brown', 'fox', 'jumps', 'over', 'the', 'lazy', 'dog', 'near', 'home']

export const LONG_TEXT =
  'Officials said the bridge will reopen to traffic early next month. The council approved the budget ' +
  'after a long debate on Tuesday evening. Residents are asked to use the northern route until then. ' +
  'More details will be published on the city website later this week.'

/**
 * 5,000 characters of quotes, parentheses, backslashes, semicolons, newlines, emoji and attempts to close the
 * engine's string and run code; few of them are speakable, so the test stays quick.
 */
export const HOSTILE_TEXT = (() => {
  const block =
    '(quit) ") (set! x 1) (" \\" ; \n\t((( """ ))) ;;; [[ {{ }} ]] \') "" (( )) ;; \n\n' +
    '😀🎉'.repeat(10) +
    ' ((""));; '.repeat(6)
  let text = ''
  while (text.length < 5000) text += block
  return text.slice(0, 5000)
})()

export function expectSpeech(c: Collected, minSec: number, maxSec: number, quietEdges = true): void {
  expect(c.duration).toBeGreaterThan(minSec)
  expect(c.duration).toBeLessThan(maxSec)
  expect(rms(c.samples)).toBeGreaterThan(0.02)
  for (const s of c.samples) if (!(Math.abs(s) <= 1)) throw new Error(`sample out of range: ${s}`)
  // Trimmed: little silence at either end, and the edges start and end near zero (no click).
  const loud = (s: number): boolean => Math.abs(s) > 0.01
  const sr = c.samples.length / c.duration
  expect(c.samples.findIndex(loud) / sr).toBeLessThan(0.12)
  expect((c.samples.length - 1 - c.samples.findLastIndex(loud)) / sr).toBeLessThan(0.12)
  if (!quietEdges) return
  expect(Math.abs(c.samples[0]!)).toBeLessThan(0.01)
  expect(Math.abs(c.samples[c.samples.length - 1]!)).toBeLessThan(0.01)
}

/** Words are the expected ones, in order, slice the text, and have monotonic, non-overlapping times. */
export function expectWords(text: string, c: Collected, expected?: readonly string[]): void {
  if (expected) expect(c.words.map((w) => w.text)).toEqual(expected)
  let floor = 0
  for (const w of c.words) {
    expect(text.slice(w.charStart, w.charEnd)).toBe(w.text)
    expect(w.start).toBeGreaterThanOrEqual(floor - 1e-9)
    expect(w.end).toBeGreaterThanOrEqual(w.start)
    expect(w.end).toBeLessThanOrEqual(c.duration + 1e-6)
    floor = w.end
  }
  if (expected && expected.length > 1) {
    // Real timings: speech spans most of the audio, and words have real lengths.
    const last = c.words[c.words.length - 1]!
    expect(last.end - c.words[0]!.start).toBeGreaterThan(c.duration * 0.6)
    for (const w of c.words) expect(w.end - w.start).toBeGreaterThan(0.02)
  }
}

/** Silent stretches of at least `minSec` (frame peaks under -46 dBFS), in seconds. */
export function silences(samples: Float32Array, sampleRate: number, minSec: number): { start: number; end: number }[] {
  const frame = Math.round(sampleRate * 0.01)
  const out: { start: number; end: number }[] = []
  let runStart = -1
  const frames = Math.floor(samples.length / frame)
  for (let f = 0; f <= frames; f++) {
    let peak = 1
    if (f < frames) {
      peak = 0
      for (let i = f * frame; i < (f + 1) * frame; i++) peak = Math.max(peak, Math.abs(samples[i]!))
    }
    if (peak < 0.005 && runStart < 0) runStart = f
    if (peak >= 0.005 && runStart >= 0) {
      if ((f - runStart) * 0.01 >= minSec) {
        out.push({ start: (runStart * frame) / sampleRate, end: (f * frame) / sampleRate })
      }
      runStart = -1
    }
  }
  return out
}

/** Every long pause inside the speech lies between two consecutive words, not inside one. */
export function expectPausesBetweenWords(c: Collected, sampleRate: number): number {
  const first = c.words[0]!.start
  const last = c.words[c.words.length - 1]!.end
  const pauses = silences(c.samples, sampleRate, 0.12).filter((p) => p.start > first && p.end < last)
  for (const p of pauses) {
    const mid = (p.start + p.end) / 2
    const inside = c.words.find((w) => w.start + 0.03 < mid && mid < w.end - 0.03)
    expect(inside, `pause ${p.start.toFixed(2)}-${p.end.toFixed(2)} inside "${inside?.text}"`).toBeUndefined()
  }
  return pauses.length
}

/** Median F0 in Hz over voiced 40 ms frames (normalized autocorrelation). */
export function medianF0(samples: Float32Array, sampleRate: number): number {
  const frame = Math.round(sampleRate * 0.04)
  const hop = Math.round(sampleRate * 0.02)
  const minLag = Math.floor(sampleRate / 400)
  const maxLag = Math.ceil(sampleRate / 60)
  const found: number[] = []
  for (let s = 0; s + frame + maxLag < samples.length; s += hop) {
    let e1 = 0
    for (let i = 0; i < frame; i++) e1 += samples[s + i]! ** 2
    if (Math.sqrt(e1 / frame) < 0.03) continue
    const r = new Float64Array(maxLag + 1)
    let best = 0
    for (let lag = minLag; lag <= maxLag; lag++) {
      let c = 0
      let e2 = 0
      for (let i = 0; i < frame; i++) {
        c += samples[s + i]! * samples[s + i + lag]!
        e2 += samples[s + i + lag]! ** 2
      }
      r[lag] = c / Math.sqrt(e1 * e2 + 1e-12)
      best = Math.max(best, r[lag]!)
    }
    if (best < 0.75) continue
    // The shortest lag that is nearly as good as the best avoids octave errors.
    for (let lag = minLag + 1; lag < maxLag; lag++) {
      if (r[lag]! >= 0.92 * best && r[lag]! >= r[lag - 1]! && r[lag]! >= r[lag + 1]!) {
        found.push(sampleRate / lag)
        break
      }
    }
  }
  found.sort((a, b) => a - b)
  return found[Math.floor(found.length / 2)] ?? 0
}
