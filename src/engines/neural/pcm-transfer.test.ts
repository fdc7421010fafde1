import { describe, expect, it } from 'vitest'
import { fromTransfer, toTransfer } from './pcm-transfer.js'

describe('a sentence crossing from the neural process', () => {
  it('comes back within half a 16-bit step of its peak, whatever its level', () => {
    for (const level of [0.9, 0.05, 0.0004]) {
      const samples = Float32Array.from({ length: 22_050 }, (_, i) => level * Math.sin(i / 7) * Math.cos(i / 3001))
      const back = fromTransfer(toTransfer(samples))
      expect(back).toHaveLength(samples.length)
      let worst = 0
      for (let i = 0; i < samples.length; i++) worst = Math.max(worst, Math.abs(back[i]! - samples[i]!))
      // Scaled to its own peak: a quiet sentence keeps 16-bit resolution relative to that peak, not to full scale.
      const peak = samples.reduce((m, s) => Math.max(m, Math.abs(s)), 0)
      // (plus float32 rounding of the values themselves)
      expect(worst).toBeLessThanOrEqual((peak / 32767) * 0.5 + peak * 2 ** -23)
      expect(worst).toBeGreaterThan(0)
    }
  })

  it('keeps the peak itself exactly, and takes half the bytes of float samples', () => {
    const samples = new Float32Array([0, 0.25, -0.5, 0.125])
    const sent = toTransfer(samples)
    expect(sent.pcm.byteLength).toBe(samples.byteLength / 2)
    expect(Array.from(sent.pcm)).toEqual([0, 16384, -32767, 8192])
    expect(fromTransfer(sent)[2]).toBeCloseTo(-0.5, 7)
  })

  it('sends silence as zeros, and a non-finite sample as 0 without silencing the rest', () => {
    expect(Array.from(fromTransfer(toTransfer(new Float32Array(4))))).toEqual([0, 0, 0, 0])
    const back = fromTransfer(toTransfer(new Float32Array([0.5, Number.POSITIVE_INFINITY, Number.NaN, -0.25])))
    expect(back[0]).toBeCloseTo(0.5, 7)
    expect(back[1]).toBe(0)
    expect(back[2]).toBe(0)
    expect(back[3]).toBeCloseTo(-0.25, 4)
  })
})
