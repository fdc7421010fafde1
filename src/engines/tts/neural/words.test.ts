import { describe, expect, it } from 'vitest'
import { estimateWords, voicedRuns } from './words.js'

const RATE = 24_000

/** Audio voiced (a 200 Hz tone) over the given spans in seconds, silent elsewhere, with a faint noise floor. */
function audio(spans: readonly [number, number][], seconds: number): Float32Array {
  const out = new Float32Array(Math.round(seconds * RATE))
  for (let i = 0; i < out.length; i++) out[i] = 0.0005 * Math.sin(i * 12.9898)
  for (const [from, to] of spans) for (let i = Math.round(from * RATE); i < Math.round(to * RATE); i++) out[i] = 0.3 * Math.sin((2 * Math.PI * 200 * i) / RATE)
  return out
}

describe('word times for engines that report none', () => {
  it('finds the voiced runs, joining pauses shorter than a phrase break', () => {
    const runs = voicedRuns(audio([[0.2, 0.5], [0.55, 1.0], [1.3, 2.0]], 2.5), RATE)
    expect(runs.map((r) => [r.start, r.end].map((t) => Math.round(t * 100) / 100))).toEqual([[0.2, 1], [1.3, 2]])
  })

  it('puts each phrase on the pause the audio has, whatever its letter count', () => {
    // A short first phrase spoken slowly, a long second one spoken fast: letters alone would misplace the break.
    const text = 'Well, then I suppose we should be going home now.'
    const words = estimateWords(text, audio([[0.1, 1.2], [1.6, 2.4]], 2.6), RATE)
    expect(words.map((w) => w.text)).toEqual(['Well', 'then', 'I', 'suppose', 'we', 'should', 'be', 'going', 'home', 'now'])
    expect(words[0]!.start).toBeCloseTo(0.1, 2)
    expect(words[0]!.end).toBeCloseTo(1.2, 2)
    expect(words[1]!.start).toBeCloseTo(1.6, 2)
    expect(words.at(-1)!.end).toBeCloseTo(2.4, 2)
    for (let i = 1; i < words.length; i++) expect(words[i]!.start).toBeGreaterThanOrEqual(words[i - 1]!.end - 1e-9)
  })

  it('takes the longest pauses as the breaks when the audio pauses inside a phrase too', () => {
    const text = 'One two, three four.'
    // Pauses: 0.15 s inside the first phrase, 0.5 s at the comma.
    const words = estimateWords(text, audio([[0, 0.4], [0.55, 1.0], [1.5, 2.0]], 2.2), RATE)
    expect(words[2]!.start).toBeCloseTo(1.5, 2)
    expect(words[1]!.end).toBeCloseTo(1.0, 2)
  })

  it('without enough pauses, shares the voiced span by letters with room at punctuation', () => {
    const text = 'Hello there, friend.'
    const words = estimateWords(text, audio([[0.5, 2.5]], 3), RATE)
    expect(words[0]!.start).toBeCloseTo(0.5, 2)
    expect(words.at(-1)!.end).toBeCloseTo(2.5, 2)
    // Hello (6 units), there (6), the comma's pause (2), friend (7): 21 units over 2 s.
    expect(words[2]!.start - words[1]!.end).toBeCloseTo((2 * 2) / 21, 2)
  })

  it('gives no words for text without any, and zero-length times on silent audio', () => {
    expect(estimateWords('...', audio([[0, 1]], 1), RATE)).toEqual([])
    const words = estimateWords('Hello.', new Float32Array(RATE), RATE)
    expect(words).toHaveLength(1)
    expect(words[0]!.end).toBe(words[0]!.start)
  })
})
