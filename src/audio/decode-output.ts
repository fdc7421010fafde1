/**
 * Where decoded audio goes as the decoder worker sends it, block by block: mono at one output rate (blocks
 * at another rate go through a resampler as they arrive), in one buffer sized from an estimate of the whole
 * file, so a file is normally held once at the output rate, not as a list of blocks plus their
 * concatenation, and never in full at its own rate.
 */
import { createResampler } from './resample.js'
import { float32ToInt16 } from './signal.js'
import type { MonoSamples, Resampler } from './types.js'

/** Headroom on the size estimate, so a file slightly longer than estimated needs no second buffer. */
const HEADROOM = 1.03
/** When the estimate falls short: grow at least this much, so repeated misses copy rarely. */
const MIN_GROWTH = 1.25

export interface DecodeOutput<S extends MonoSamples = MonoSamples> {
  /**
   * Adds a mono block at `rate`. `expectedSeconds` is the caller's current guess of the whole output's
   * duration, used to size the buffer.
   */
  add(mono: Float32Array, rate: number, expectedSeconds: number): void
  /** The samples (a view of the buffer when it is nearly full, else a trimmed copy) and their rate. */
  finish(): { samples: S; sampleRate: number }
}

/** Float blocks → the output's sample type, written in place from `at`. */
type Writer = (out: MonoSamples, at: number, block: Float32Array) => void

const writeFloat: Writer = (out, at, block) => (out as Float32Array).set(block, at)

const writeInt16: Writer = (out, at, block) => void float32ToInt16(block, out as Int16Array, at)

/** `format: 'int16'` keeps the samples as 16-bit integers (half the memory; see `MonoSamples`). */
export function createDecodeOutput(targetRate: number | undefined, format: 'int16'): DecodeOutput<Int16Array>
export function createDecodeOutput(targetRate: number | undefined, format?: 'float32'): DecodeOutput<Float32Array>
export function createDecodeOutput(targetRate: number | undefined, format?: 'float32' | 'int16'): DecodeOutput
export function createDecodeOutput(targetRate: number | undefined, format: 'float32' | 'int16' = 'float32'): DecodeOutput {
  const allocate = (n: number): MonoSamples => (format === 'int16' ? new Int16Array(n) : new Float32Array(n))
  const write = format === 'int16' ? writeInt16 : writeFloat
  let outputRate = targetRate ?? 0
  let resampler: Resampler | undefined
  let data = allocate(0)
  let length = 0
  let expected = 0

  const append = (block: Float32Array) => {
    const needed = length + block.length
    if (needed > data.length) {
      const estimate = Math.ceil(expected * outputRate * HEADROOM)
      const grown = allocate(Math.max(needed, estimate, Math.ceil(data.length * MIN_GROWTH)))
      grown.set(data.subarray(0, length))
      data = grown
    }
    write(data, length, block)
    length = needed
  }

  return {
    add(mono, rate, expectedSeconds) {
      expected = expectedSeconds
      if (outputRate === 0) outputRate = rate
      if (resampler && resampler.inputRate !== rate) {
        append(resampler.flush())
        resampler = undefined
      }
      if (rate === outputRate) return append(mono)
      resampler ??= createResampler(rate, outputRate)
      append(resampler.process(mono))
    },
    finish() {
      if (resampler) append(resampler.flush())
      // A badly overestimated buffer is trimmed, so the caller does not keep the slack alive.
      const samples = data.length - length > data.length / 16 ? data.slice(0, length) : data.subarray(0, length)
      return { samples, sampleRate: outputRate }
    },
  }
}
