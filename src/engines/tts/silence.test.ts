import { describe, expect, it } from 'vitest'
import { concatSamples } from '../../audio/signal.js'
import { Envelope } from './envelope.js'
import { StreamTrimmer, trimSilence } from './silence.js'

const SR = 16000
const tone = (sec: number): Float32Array => Float32Array.from({ length: sec * SR }, (_, i) => 0.5 * Math.sin(i / 5))
const quiet = (sec: number): Float32Array => new Float32Array(sec * SR)

describe('trimSilence', () => {
  it('keeps a bounded margin, reports the offset, and fades the cuts', () => {
    const input = concatSamples([quiet(0.5), tone(1), quiet(0.7)])
    const { samples, offset } = trimSilence(input, SR, 0.05, 0.1)
    expect(offset).toBeCloseTo(0.45, 3)
    expect(samples.length / SR).toBeCloseTo(1.15, 2)
    expect(samples[0]).toBe(0)
    expect(samples[samples.length - 1]).toBe(0)
  })

  it('returns nothing for silence', () => {
    expect(trimSilence(quiet(1), SR, 0.05, 0.05).samples.length).toBe(0)
  })
})

describe('StreamTrimmer', () => {
  it('matches trimSilence on streamed blocks and passes inner pauses through', () => {
    const input = concatSamples([quiet(0.5), tone(0.5), quiet(0.3), tone(0.5), quiet(0.7)])
    const t = new StreamTrimmer(SR, 0.05, 0.1)
    const out: Float32Array[] = []
    for (let i = 0; i < input.length; i += 1234) out.push(t.push(input.slice(i, i + 1234)))
    out.push(t.end())
    const streamed = concatSamples(out)
    expect(t.offset).toBeCloseTo(0.45, 3)
    expect(streamed.length / SR).toBeCloseTo(0.05 + 0.5 + 0.3 + 0.5 + 0.1, 2)
  })
})

describe('Envelope', () => {
  it('tightens a span to its loud part', () => {
    const env = new Envelope(SR)
    env.push(concatSamples([quiet(0.2), tone(0.3), quiet(0.5)]))
    const span = env.tighten(0.1, 0.9)
    expect(span.start).toBeCloseTo(0.19, 2)
    expect(span.end).toBeCloseTo(0.51, 2)
    expect(env.tighten(0.6, 0.9)).toEqual({ start: 0.6, end: 0.9 })
  })
})
