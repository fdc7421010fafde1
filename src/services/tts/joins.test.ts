import { describe, expect, it } from 'vitest'
import { concatSamples } from '../../audio/signal.js'
import { EdgeSmoother, FADE_MS } from './joins.js'

const RATE = 16_000
const FADE = (RATE * FADE_MS) / 1000

/** Deterministic audio and block sizes (a linear congruential generator), so a failure repeats. */
function* numbers(seed: number): Generator<number> {
  let x = seed
  for (;;) yield (x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
}

/** What the smoother must give for `whole` spoken as one chunk: faded in over the first FADE samples and out over the last. */
function faded(whole: Float32Array): Float32Array {
  const out = whole.slice()
  for (let i = 0; i < FADE; i++) out[i]! *= i / FADE
  for (let i = 0; i < FADE; i++) out[out.length - FADE + i]! *= (FADE - i - 1) / FADE
  return out
}

describe('EdgeSmoother', () => {
  it('gives the chunk faded at both ends, whatever the block sizes (blocks shorter than the fade included)', () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const random = numbers(seed)
      const blocks = Array.from({ length: 30 }, () => {
        const size = random.next().value! < 0.3 ? Math.floor(random.next().value! * FADE) + 1 : Math.floor(random.next().value! * 4000) + FADE
        return Float32Array.from({ length: size }, () => random.next().value! * 2 - 1)
      })
      const whole = concatSamples(blocks)
      const smoother = new EdgeSmoother(RATE)
      // The smoother works in the blocks it is given, so it gets copies; `whole` stays the reference.
      const out = concatSamples([...blocks.map((b) => smoother.push(b.slice())), smoother.end()])
      expect(out.length).toBe(whole.length)
      expect(Array.from(out)).toEqual(Array.from(faded(whole)))
    }
  })

  it('answers a block at least a fade long in the block itself, and starts each chunk afresh after end()', () => {
    const smoother = new EdgeSmoother(RATE)
    for (let chunk = 0; chunk < 2; chunk++) {
      const blocks = [800, 1600, 64].map((n, k) => new Float32Array(n).fill(k + 1))
      const outs = blocks.map((b) => smoother.push(b))
      expect(outs[0]!.buffer).toBe(blocks[0]!.buffer)
      expect(outs[1]!.buffer).toBe(blocks[1]!.buffer)
      expect(outs[0]![0]).toBe(0) // faded in from silence
      expect(outs[0]!.length + outs[1]!.length + outs[2]!.length + smoother.end().length).toBe(800 + 1600 + 64)
    }
  })
})
