import { describe, expect, it } from 'vitest'
import { fadeEdges } from './fade.js'
import { applyGainDb, applyGainRamp, dbToGain, gainToDb, peak, rmsDb } from './gain.js'
import { createLoudnessMeter, loudnessNormalizer, measureLoudness, normalizeLoudness } from './loudness.js'
import { concatSamples } from './signal.js'
import { maxJump, sine, speechLike } from '../../test/support/audio.js'

describe('gain', () => {
  it('converts between dB and linear gain', () => {
    expect(dbToGain(6.0206)).toBeCloseTo(2, 4)
    expect(gainToDb(0.5)).toBeCloseTo(-6.0206, 3)
    expect(gainToDb(0)).toBe(-Infinity)
  })

  it('applyGainDb scales, clamps and leaves the input alone', () => {
    const x = sine(100, 0.1, 8000, 0.25)
    const louder = applyGainDb(x, 6.0206)
    expect(peak(louder)).toBeCloseTo(0.5, 3)
    expect(peak(x)).toBeCloseTo(0.25, 3)
    expect(peak(applyGainDb(x, 20))).toBe(1)
    expect(rmsDb(x)).toBeCloseTo(20 * Math.log10(0.25) - 3.0103, 2)
    expect(rmsDb(new Float32Array(10))).toBe(-Infinity)
  })

  it('applyGainRamp glides between gains without a step', () => {
    const x = sine(440, 0.2, 24000, 0.1)
    const y = applyGainRamp(x, 1, 8, 720)
    expect(peak(y.subarray(0, 10))).toBeLessThan(0.12)
    expect(peak(y.subarray(1000))).toBeCloseTo(0.8, 2)
    const ownStep = (2 * Math.PI * 440 * 0.8) / 24000
    expect(maxJump(y)).toBeLessThan(ownStep * 1.05)
  })
})

describe('loudness (BS.1770)', () => {
  for (const rate of [16000, 44100, 48000]) {
    it(`reads a 997 Hz sine at -20 dBFS peak as -23.0 LUFS at ${rate} Hz`, () => {
      expect(measureLoudness(sine(997, 3, rate, 0.1), rate)).toBeCloseTo(-23.01, 1)
    })
  }

  it('weights low frequencies down (K-weighting high pass)', () => {
    expect(measureLoudness(sine(40, 3, 48000, 0.1), 48000)).toBeLessThan(-24.5)
  })

  it('gates out silence between phrases', () => {
    const rate = 24000
    const tone = sine(997, 2, rate, 0.1)
    const gapped = concatSamples([tone, new Float32Array(rate * 4), tone])
    // Ungated, 4 s of silence in 8 s would read 3 dB lower; blocks straddling the edges still count a little.
    const gated = measureLoudness(gapped, rate)
    expect(gated).toBeGreaterThan(-23.6)
    expect(gated).toBeLessThan(-23)
  })

  it('streams: pushing in pieces reads the same as all at once', () => {
    const x = speechLike(3, 22050)
    const meter = createLoudnessMeter(22050)
    for (let i = 0; i < x.length; i += 777) meter.push(x.subarray(i, i + 777))
    expect(meter.integrated()).toBeCloseTo(measureLoudness(x, 22050), 6)
  })

  it('is -Infinity for silence', () => {
    expect(measureLoudness(new Float32Array(48000), 48000)).toBe(-Infinity)
  })
})

describe('normalization', () => {
  it('normalizeLoudness reaches the target unless peaks would pass the ceiling', () => {
    const quiet = speechLike(3, 24000, 3).map((v) => v * 0.2) // about -32.6 LUFS
    expect(measureLoudness(normalizeLoudness(quiet, 24000), 24000)).toBeCloseTo(-20, 1)
    // Near-silence is not boosted by more than maxGainDb.
    const faint = speechLike(3, 24000, 3).map((v) => v * 0.01) // about -58.6 LUFS
    const boosted = measureLoudness(normalizeLoudness(faint, 24000, { maxGainDb: 20 }), 24000)
    expect(boosted - measureLoudness(faint, 24000)).toBeCloseTo(20, 1)
    const spiky = sine(997, 1, 24000, 0.01)
    spiky[1000] = 0.9
    const out = normalizeLoudness(spiky, 24000, { targetLufs: -14 })
    expect(20 * Math.log10(peak(out))).toBeLessThanOrEqual(-0.99)
  })

  for (const [engine, level] of [['quiet', 0.1], ['loud', 1.6]] as const) {
    it(`loudnessNormalizer brings a ${engine} stream to the target from its first chunk`, () => {
      const rate = 24000
      const normalizer = loudnessNormalizer(rate)
      const running = createLoudnessMeter(rate)
      for (let i = 0; i < 5; i++) {
        const wobble = 1 + 0.2 * Math.sin(i)
        running.push(normalizer.process(speechLike(1.5, rate, i + 1).map((v) => v * level * wobble)))
        expect(Math.abs(running.integrated() + 20)).toBeLessThan(1)
      }
    })
  }

  const runChunks = (levels: readonly number[], rate: number) => {
    const normalizer = loudnessNormalizer(rate)
    // Inputs fade in and out, so any step at a join would come from the normalizer.
    const inputs = levels.map((level, i) => fadeEdges(speechLike(1.5, rate, i + 1).map((v) => v * level), rate))
    return { inputs, outputs: inputs.map((x) => normalizer.process(x)) }
  }

  it('loudnessNormalizer glides between gains: the applied gain never steps, joins included', () => {
    const { inputs, outputs } = runChunks([0.1, 0.2, 0.12, 0.18], 24000)
    const x = concatSamples(inputs)
    const y = concatSamples(outputs)
    let previous: { gain: number; at: number } | undefined
    let changes = 0
    for (let i = 0; i < x.length; i++) {
      if (Math.abs(x[i]!) < 1e-3) continue // the ratio is noise where the input is near zero
      const gain = y[i]! / x[i]!
      if (previous) {
        const perSample = Math.abs(gain / previous.gain - 1) / (i - previous.at)
        expect(perSample).toBeLessThan(0.01)
        if (perSample > 1e-4) changes++
      }
      previous = { gain, at: i }
    }
    expect(changes).toBeGreaterThan(100) // it did move
  })

  it('loudnessNormalizer follows a jump to a loud chunk without passing the ceiling or clicking', () => {
    const { outputs } = runChunks([0.1, 0.8, 0.15, 0.6], 24000)
    for (const chunk of outputs) expect(peak(chunk)).toBeLessThanOrEqual(dbToGain(-1) + 1e-6)
    const y = concatSamples(outputs)
    let join = 0
    for (const chunk of outputs.slice(0, -1)) {
      join += chunk.length
      expect(Math.abs(y[join]! - y[join - 1]!)).toBeLessThan(0.01)
    }
  })

  it('loudnessNormalizer keeps its gain through silent chunks', () => {
    const normalizer = loudnessNormalizer(16000)
    normalizer.process(speechLike(1, 16000).map((v) => v * 0.05))
    const gain = normalizer.gainDb
    expect(gain).toBeGreaterThan(5)
    normalizer.process(new Float32Array(16000))
    expect(normalizer.gainDb).toBe(gain)
  })
})
