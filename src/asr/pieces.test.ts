import { describe, expect, it } from 'vitest'
import { pieceBounds } from './pieces.js'

const RATE = 16_000

/** A 300 Hz tone of `seconds`, silent in the given [start, end) ranges (seconds). */
function toneWithGaps(seconds: number, gaps: readonly [number, number][]): Float32Array {
  const out = new Float32Array(seconds * RATE)
  for (let i = 0; i < out.length; i++) {
    const t = i / RATE
    out[i] = gaps.some(([a, b]) => t >= a && t < b) ? 0 : 0.5 * Math.sin(2 * Math.PI * 300 * t)
  }
  return out
}

function expectCover(pieces: { start: number, end: number }[], length: number): void {
  expect(pieces[0]!.start).toBe(0)
  expect(pieces[pieces.length - 1]!.end).toBe(length)
  for (let i = 1; i < pieces.length; i++) expect(pieces[i]!.start).toBe(pieces[i - 1]!.end)
}

describe('pieceBounds', () => {
  it('keeps audio no longer than a piece whole', () => {
    expect(pieceBounds(new Float32Array(RATE * 10), RATE, 10)).toEqual([{ start: 0, end: RATE * 10 }])
  })

  it('cuts inside the pause before each limit, not at the limit', () => {
    const samples = toneWithGaps(30, [[7.2, 7.5], [14.6, 14.9]])
    const pieces = pieceBounds(samples, RATE, 8)
    expectCover(pieces, samples.length)
    expect(pieces.length).toBe(4)
    const cut1 = pieces[0]!.end / RATE
    const cut2 = pieces[1]!.end / RATE
    expect(cut1).toBeGreaterThan(7.2)
    expect(cut1).toBeLessThan(7.5)
    expect(cut2).toBeGreaterThan(14.6)
    expect(cut2).toBeLessThan(14.9)
    for (const p of pieces) expect(p.end - p.start).toBeLessThanOrEqual(8 * RATE)
  })

  it('in uniform sound or silence, cuts close to the limit', () => {
    for (const samples of [new Float32Array(RATE * 25), toneWithGaps(25, [])]) {
      const pieces = pieceBounds(samples, RATE, 10)
      expectCover(pieces, samples.length)
      expect(pieces.length).toBe(3)
      for (const p of pieces.slice(0, -1)) {
        expect(p.end - p.start).toBeLessThanOrEqual(10 * RATE)
        expect(p.end - p.start).toBeGreaterThanOrEqual(7.5 * RATE)
      }
    }
  })

  it('never moves a cut more than 30 s before the limit of a 10-minute piece', () => {
    const samples = toneWithGaps(700, [[100, 101]])
    const pieces = pieceBounds(samples, RATE, 600)
    expectCover(pieces, samples.length)
    expect(pieces[0]!.end).toBeGreaterThanOrEqual(570 * RATE)
    expect(pieces[0]!.end).toBeLessThanOrEqual(600 * RATE)
  })
})
