import { describe, expect, it } from 'vitest'
import { PASSAGES, speech } from '../../../test/support/voice-speech.js'
import { concatSamples } from '../signal.js'
import { medianF0, trackPitch } from './pitch.js'
import { createStretcher, rubberBandHeapBytes, stretchAndShift } from './rubberband.js'

function maxJump(x: Float32Array, from = 1, to = x.length): number {
  let max = 0
  for (let i = Math.max(1, from); i < to; i++) max = Math.max(max, Math.abs(x[i]! - x[i - 1]!))
  return max
}

function hasNaN(x: Float32Array): boolean {
  for (let i = 0; i < x.length; i++) if (!Number.isFinite(x[i]!)) return true
  return false
}

const CASES = [
  { semitones: 4, timeRatio: 0.85, formantScale: 1 },
  { semitones: -5, timeRatio: 1.2, formantScale: 1 },
  { semitones: 0, timeRatio: 1, formantScale: 1.15 },
] as const

describe('stretchAndShift', () => {
  it('returns the input itself for identity ratios', async () => {
    const x = new Float32Array([0.1, -0.2, 0.3])
    expect(await stretchAndShift(x, 16000, { timeRatio: 1, pitchScale: 1 })).toBe(x)
    expect(await stretchAndShift(x, 16000, { timeRatio: 1, pitchScale: 1, formantScale: 1 })).toBe(x)
  })

  it('rejects ratios outside the supported range with a SpeechError naming rubberband', async () => {
    const x = new Float32Array(100)
    await expect(stretchAndShift(x, 16000, { timeRatio: 0, pitchScale: 1 })).rejects.toThrow(/\[rubberband\]/)
    await expect(stretchAndShift(x, 16000, { timeRatio: 1, pitchScale: NaN })).rejects.toThrow(/pitchScale/)
  })

  for (const c of CASES) {
    const name = `${c.semitones} st, time ×${c.timeRatio}, formants ×${c.formantScale}`
    it(`${name}: exact length, F0 moved, no NaN or clicks`, async () => {
      const { samples, sampleRate } = await speech(PASSAGES.a)
      const pitchScale = 2 ** (c.semitones / 12)
      const { timeRatio, formantScale } = c
      const out = await stretchAndShift(samples, sampleRate, { timeRatio, pitchScale, formantScale })
      const inSec = samples.length / sampleRate
      expect(Math.abs(out.length / sampleRate - inSec * c.timeRatio)).toBeLessThan(0.02)
      expect(hasNaN(out)).toBe(false)
      const jumpLimit = 2 * maxJump(samples) * Math.max(1, pitchScale)
      expect(maxJump(out)).toBeLessThan(jumpLimit)
      // The festival clip starts and ends in silence; so must the output (no onset/offset click).
      const edge = Math.round(0.01 * sampleRate)
      expect(maxJump(out, 1, edge)).toBeLessThan(0.02)
      expect(maxJump(out, out.length - edge)).toBeLessThan(0.02)
      const f0In = medianF0(trackPitch(samples, sampleRate))
      const f0Out = medianF0(trackPitch(out, sampleRate))
      expect(f0Out / (f0In * pitchScale)).toBeGreaterThan(0.97)
      expect(f0Out / (f0In * pitchScale)).toBeLessThan(1.03)
    })
  }

  it('stops on abort and frees its state', async () => {
    const { samples, sampleRate } = await speech(PASSAGES.a)
    const long = concatSamples([samples, samples, samples])
    const options = { timeRatio: 1.1, pitchScale: 1.2 }
    await expect(stretchAndShift(long, sampleRate, { ...options, signal: AbortSignal.abort() })).rejects.toThrow()
    const before = await rubberBandHeapBytes()
    const controller = new AbortController()
    // The whole job takes over a second (more on a busy machine): an abort after 30 ms lands mid-way.
    setTimeout(() => controller.abort(), 30)
    const pending = stretchAndShift(long, sampleRate, { ...options, signal: controller.signal })
    await expect(pending).rejects.toThrow(/abort/i)
    expect(await rubberBandHeapBytes()).toBe(before)
  })
})

describe('createStretcher (real-time mode)', () => {
  it('passes audio through unchanged for identity ratios', async () => {
    const s = await createStretcher(16000, { timeRatio: 1, pitchScale: 1 })
    const block = new Float32Array([0.5, 0.25])
    expect(s.process(block)).toBe(block)
    expect(s.flush().length).toBe(0)
  })

  for (const c of CASES.slice(0, 2)) {
    it(`${c.semitones} st, time ×${c.timeRatio}: early first output, exact length, seamless joins`, async () => {
      const { samples, sampleRate } = await speech(PASSAGES.a)
      const pitchScale = 2 ** (c.semitones / 12)
      const stretcher = await createStretcher(sampleRate, { timeRatio: c.timeRatio, pitchScale })
      const block = Math.round(0.02 * sampleRate)
      const parts: Float32Array[] = []
      let firstAfterSec = -1
      for (let at = 0; at < samples.length; at += block) {
        const out = stretcher.process(samples.subarray(at, at + block))
        if (out.length > 0 && firstAfterSec < 0) firstAfterSec = (at + block) / sampleRate
        parts.push(out)
      }
      parts.push(stretcher.flush())
      const out = concatSamples(parts)
      const inSec = samples.length / sampleRate
      expect(firstAfterSec).toBeGreaterThan(0)
      expect(firstAfterSec).toBeLessThan(0.25)
      expect(Math.abs(out.length / sampleRate - inSec * c.timeRatio)).toBeLessThan(0.02)
      expect(hasNaN(out)).toBe(false)
      expect(maxJump(out)).toBeLessThan(2 * maxJump(samples) * Math.max(1, pitchScale))
      const f0Out = medianF0(trackPitch(out, sampleRate))
      const f0In = medianF0(trackPitch(samples, sampleRate))
      expect(Math.abs(f0Out / (f0In * pitchScale) - 1)).toBeLessThan(0.03)
      // Aligned with the input: speech onset (first loud sample) at the input's onset × timeRatio.
      const onset = (x: Float32Array) => x.findIndex((v) => Math.abs(v) > 0.05) / sampleRate
      expect(Math.abs(onset(out) - onset(samples) * c.timeRatio)).toBeLessThan(0.02)
    })
  }

  it('throws when used after flush, and close() is idempotent', async () => {
    const s = await createStretcher(16000, { timeRatio: 1.1, pitchScale: 1 })
    s.process(new Float32Array(1000))
    s.flush()
    expect(() => s.process(new Float32Array(10))).toThrow(/after flush/)
    s.close()
    s.close()
  })
})

describe('wasm memory', () => {
  it('does not grow across 1,000 offline calls and 100 streams', async () => {
    const rate = 16000
    const x = new Float32Array(rate / 10).map((_, i) => 0.3 * Math.sin((2 * Math.PI * 180 * i) / rate))
    const round = async () => {
      await stretchAndShift(x, rate, { timeRatio: 1.1, pitchScale: 1.2, formantScale: 1.05 })
    }
    const stream = async (flush: boolean) => {
      const s = await createStretcher(rate, { timeRatio: 0.9, pitchScale: 0.8 })
      s.process(x)
      if (flush) s.flush()
      else s.close()
    }
    for (let i = 0; i < 20; i++) {
      await round()
      await stream(i % 2 === 0)
    }
    const before = await rubberBandHeapBytes()
    for (let i = 0; i < 1000; i++) await round()
    for (let i = 0; i < 100; i++) await stream(i % 2 === 0)
    expect(await rubberBandHeapBytes()).toBe(before)
  }, 120_000)
})
