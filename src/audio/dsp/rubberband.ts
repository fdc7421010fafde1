/**
 * Pitch shifting, time stretching and formant scaling with Rubber Band (R3 "finer" engine, formants
 * preserved). `stretchAndShift` does whole utterances offline (study pass, then process), which gives the
 * best quality and an exact output length; `createStretcher` (rubberband-stream.ts) streams.
 * See docs/decisions.md "Voice adaptation" for the engine choice and measured speed.
 */
import { concatSamples } from '../signal.js'
import { openSession, rubberBand } from './rubberband-module.js'
import { isIdentity, newState, validateStretch, type StretchOptions } from './rubberband-options.js'

export { createStretcher, type StreamingStretcher } from './rubberband-stream.js'
export { rubberBandHeapBytes } from './rubberband-module.js'
export type { StretchOptions } from './rubberband-options.js'

const BLOCK = 8192
/** Blocks processed between yields to the event loop, so an abort is noticed within a few tens of ms. */
const BLOCKS_PER_YIELD = 4

/**
 * Whole-utterance stretch and shift. Output length is `round(input length * timeRatio)`. Returns the input
 * itself for identity ratios.
 */
export async function stretchAndShift(
  samples: Float32Array,
  sampleRate: number,
  options: StretchOptions,
): Promise<Float32Array> {
  validateStretch(sampleRate, options)
  if (isIdentity(options)) return samples
  const expected = Math.round(samples.length * options.timeRatio)
  if (samples.length === 0) return new Float32Array(0)
  const { signal } = options
  signal?.throwIfAborted()
  const rb = await rubberBand()
  const session = openSession(rb, newState(rb, sampleRate, options), BLOCK)
  const out: Float32Array[] = []
  try {
    rb._rubberband_set_max_process_size(session.state, BLOCK)
    rb._rubberband_set_expected_input_duration(session.state, samples.length)
    for (const pass of ['study', 'process'] as const) {
      for (let at = 0, blocks = 0; at < samples.length; at += BLOCK, blocks++) {
        if (blocks % BLOCKS_PER_YIELD === BLOCKS_PER_YIELD - 1) {
          await new Promise((resolve) => setImmediate(resolve))
          signal?.throwIfAborted()
        }
        const n = Math.min(BLOCK, samples.length - at)
        const input = session.load(samples.subarray(at, at + n))
        const final = at + n >= samples.length ? 1 : 0
        if (pass === 'study') rb._rubberband_study(session.state, input, n, final)
        else {
          rb._rubberband_process(session.state, input, n, final)
          session.drain(out)
        }
      }
    }
    for (let guard = 0; guard < 1000 && session.drain(out) >= 0; guard++) {
      // After the final block the engine may still be finishing; `available` turns -1 when it is done.
    }
  } finally {
    session.free()
  }
  return fitLength(concatSamples(out), expected)
}

/** Truncates or zero-pads to `length` (the engine rounds its output length by a few samples). */
export function fitLength(samples: Float32Array, length: number): Float32Array {
  if (samples.length === length) return samples
  if (samples.length > length) return samples.subarray(0, length)
  const out = new Float32Array(length)
  out.set(samples)
  return out
}
