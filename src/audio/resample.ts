import { SpeechError } from '../errors.js'
import { concatSamples } from './signal.js'
import type { Resampler } from './types.js'
import { IN_BLOCK, OUT_BLOCK, scratch, speex } from './speex-wasm.js'

/**
 * Band-limited sample-rate conversion with the SpeexDSP resampler (windowed sinc, polyphase). Quality 6 of
 * 10: passband to about 94 % of Nyquist with strong stop-band rejection, at 60 s of 22050 -> 44100 in about
 * 40 ms (see docs/decisions.md).
 */
export const DEFAULT_QUALITY = 6

export interface ResamplerOptions {
  /** SpeexDSP quality 0..10. */
  readonly quality?: number
}

/** States of resamplers dropped before `flush()` (aborted streams) are freed when collected. */
const orphans = new FinalizationRegistry<{ state: number; live: boolean }>((held) => {
  if (held.live) speex._speex_resampler_destroy(held.state)
})

function identity(rate: number): Resampler {
  return { inputRate: rate, outputRate: rate, process: (samples) => samples, flush: () => new Float32Array(0) }
}

export function createResampler(
  inputRate: number,
  outputRate: number,
  options: ResamplerOptions = {},
): Resampler {
  for (const rate of [inputRate, outputRate]) {
    if (!Number.isInteger(rate) || rate < 1000 || rate > 384_000) {
      const msg = `[resample] sample rate must be an integer in 1000..384000, got ${rate}`
      throw new SpeechError('internal_error', msg)
    }
  }
  if (inputRate === outputRate) return identity(inputRate)
  const quality = options.quality ?? DEFAULT_QUALITY
  const state = speex._speex_resampler_init(1, inputRate, outputRate, quality, scratch.error)
  if (!state) {
    throw new SpeechError('internal_error', `[resample] speex init failed (${speex.HEAP32[scratch.error >> 2]})`)
  }
  // Without skip_zeros the output would start with the filter's half-length of delay.
  speex._speex_resampler_skip_zeros(state)
  const held = { state, live: true }
  const token = {}
  orphans.register(token, held, token)
  let totalIn = 0
  let totalOut = 0

  // Feeds `samples` through the filter, returning everything it produces (no lookahead trimming).
  const run = (samples: Float32Array): Float32Array => {
    if (!held.live) throw new SpeechError('internal_error', '[resample] resampler used after flush()')
    const parts: Float32Array[] = []
    let offset = 0
    while (offset < samples.length) {
      const n = Math.min(IN_BLOCK, samples.length - offset)
      speex.HEAPF32.set(samples.subarray(offset, offset + n), scratch.input >> 2)
      let consumed = 0
      while (consumed < n) {
        speex.HEAPU32[scratch.lengths >> 2] = n - consumed
        speex.HEAPU32[(scratch.lengths >> 2) + 1] = OUT_BLOCK
        const input = scratch.input + consumed * 4
        speex._speex_resampler_process_float(state, 0, input, scratch.lengths, scratch.output, scratch.lengths + 4)
        consumed += speex.HEAPU32[scratch.lengths >> 2]!
        const produced = speex.HEAPU32[(scratch.lengths >> 2) + 1]!
        parts.push(speex.HEAPF32.slice(scratch.output >> 2, (scratch.output >> 2) + produced))
      }
      offset += n
    }
    return concatSamples(parts)
  }

  return {
    inputRate,
    outputRate,
    process(samples) {
      const out = run(samples)
      totalIn += samples.length
      totalOut += out.length
      return out
    },
    flush() {
      // Every output instant inside the input span is owed: ceil(totalIn * out / in), exactly in integers.
      const owed = Math.floor((totalIn * outputRate + inputRate - 1) / inputRate) - totalOut
      const parts: Float32Array[] = []
      let produced = 0
      const zeros = new Float32Array(Math.max(64, speex._speex_resampler_get_input_latency(state)))
      for (let guard = 0; produced < owed && guard < 64; guard++) {
        const out = run(zeros)
        parts.push(out)
        produced += out.length
      }
      held.live = false
      orphans.unregister(token)
      speex._speex_resampler_destroy(state)
      const tail = concatSamples(parts)
      totalOut += Math.max(0, owed)
      return tail.subarray(0, Math.max(0, owed))
    },
  }
}

/** Resamples a whole buffer (identity when the rates match). */
export function resampleAll(
  samples: Float32Array,
  from: number,
  to: number,
  options?: ResamplerOptions,
): Float32Array {
  if (from === to) return samples
  const resampler = createResampler(from, to, options)
  return concatSamples([resampler.process(samples), resampler.flush()])
}
