import { describe, expect, it } from 'vitest'
import { SpeechError } from '../errors.js'
import { createChunkJoiner, crossfade, fadeEdges, silence } from './fade.js'
import { concatSamples } from './signal.js'
import { maxJump, sine } from '../../test/support/audio.js'

describe('fades and joins', () => {
  it('silence has the requested length', () => {
    expect(silence(0.25, 16000)).toHaveLength(4000)
    expect(silence(-1, 16000)).toHaveLength(0)
    expect(silence(0.25, 16000).every((v) => v === 0)).toBe(true)
  })

  it('fadeEdges starts and ends at zero and leaves the middle alone', () => {
    const x = new Float32Array(1000).fill(0.8)
    const y = fadeEdges(x, 10000, { inMs: 5, outMs: 10 })
    expect(y[0]).toBe(0)
    expect(Math.abs(y[999]!)).toBeLessThan(1e-3)
    expect(y[500]).toBeCloseTo(0.8, 6)
    expect(y[60]).toBeCloseTo(0.8, 6)
    expect(y[40]).toBeLessThan(0.8)
    expect(x[0]).toBeCloseTo(0.8, 6)
    // A hard-cut chunk followed by silence no longer steps.
    expect(maxJump(concatSamples([y, new Float32Array(100)]))).toBeLessThan(0.05)
  })

  it('crossfade overlaps by ms and has no discontinuity', () => {
    const rate = 16000
    const a = { samples: new Float32Array(1600).fill(0.5), sampleRate: rate }
    const b = { samples: new Float32Array(1600).fill(-0.5), sampleRate: rate }
    const joined = crossfade(a, b, 20, 'linear')
    expect(joined.samples).toHaveLength(3200 - 320)
    expect(maxJump(joined.samples)).toBeLessThan(0.01)
    expect(joined.samples[0]).toBe(0.5)
    expect(joined.samples.at(-1)).toBe(-0.5)
    expect(() => crossfade(a, { samples: b.samples, sampleRate: 8000 }, 10)).toThrow(SpeechError)
  })

  it('equal-power crossfade keeps the level of unrelated signals', () => {
    const rate = 16000
    const a = { samples: sine(300, 0.2, rate, 0.5), sampleRate: rate }
    const b = { samples: sine(470, 0.2, rate, 0.5), sampleRate: rate }
    const joined = crossfade(a, b, 50).samples
    let peakMid = 0
    for (let i = 3200 - 800; i < 3200; i++) peakMid = Math.max(peakMid, Math.abs(joined[i]!))
    expect(peakMid).toBeLessThan(0.75)
    expect(peakMid).toBeGreaterThan(0.35)
  })

  it('the streaming joiner matches one-shot crossfades and conserves length', () => {
    const rate = 8000
    const chunks = [sine(200, 0.3, rate), sine(250, 0.2, rate), sine(300, 0.4, rate)]
    const joiner = createChunkJoiner(rate, 10)
    const streamed = concatSamples([...chunks.map((c) => joiner.push(c)), joiner.flush()])
    const ab = crossfade({ samples: chunks[0]!, sampleRate: rate }, { samples: chunks[1]!, sampleRate: rate }, 10)
    const abc = crossfade(ab, { samples: chunks[2]!, sampleRate: rate }, 10)
    expect(streamed).toEqual(abc.samples)
    expect(streamed).toHaveLength(chunks.reduce((n, c) => n + c.length, 0) - 2 * 80)
  })
})
