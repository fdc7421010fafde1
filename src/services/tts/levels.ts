import { dbToGain, gainToDb, peak } from '../../audio/gain.js'
import { DEFAULT_TARGET_LUFS, measureLoudness } from '../../audio/loudness.js'
import { concatSamples } from '../../audio/signal.js'

/**
 * Output level: `normalize_loudness` brings each text chunk to the target (`loudnessTarget`, default
 * DEFAULT_TARGET_LUFS; BS.1770 integrated loudness, gated, so pauses do not count); `prosody.volume` and
 * expression tags then add their gain.
 * Pieces too short to measure (under 0.4 s) keep the gain of the chunk's first measurable piece.
 */
const MIN_MEASURE_SEC = 0.4
const MAX_BOOST_DB = 20
const MAX_CUT_DB = -20
const CEILING = dbToGain(-0.5)

/** Gain in dB that brings the piece to `targetLufs`, or undefined when it is too short or silent to measure. */
export function loudnessGainDb(samples: Float32Array, sampleRate: number, targetLufs = DEFAULT_TARGET_LUFS): number | undefined {
  if (samples.length < MIN_MEASURE_SEC * sampleRate) return undefined
  const lufs = measureLoudness(samples, sampleRate)
  if (!Number.isFinite(lufs)) return undefined
  return Math.min(MAX_BOOST_DB, Math.max(MAX_CUT_DB, targetLufs - lufs))
}

/** Multiplies in place by `db`, lowered if needed so the peak stays under -0.5 dBFS. Returns the gain used, dB. */
export function applyGainWithCeiling(samples: Float32Array, db: number): number {
  if (db === 0) return 0
  let factor = dbToGain(db)
  const top = peak(samples)
  if (top * factor > CEILING && top > 0) factor = CEILING / top
  for (let i = 0; i < samples.length; i++) samples[i]! *= factor
  return gainToDb(factor)
}

/**
 * Levels one text chunk. With normalization on, audio is held until MIN_MEASURE_SEC of it exists (one
 * piece for sentence-at-a-time engines; a few milliseconds of compute for streaming ones), measured once,
 * and that gain is used for the whole chunk, so the level never pumps within a sentence.
 */
export class ChunkLeveler {
  private readonly rate: number
  private readonly normalize: boolean
  private readonly extraDb: number
  private readonly targetLufs: number
  private gainDb: number | undefined
  private pending: Float32Array[] = []
  private pendingLength = 0

  constructor(rate: number, normalize: boolean, extraDb: number, targetLufs = DEFAULT_TARGET_LUFS) {
    this.rate = rate
    this.normalize = normalize
    this.extraDb = extraDb
    this.targetLufs = targetLufs
    if (!normalize) this.gainDb = 0
  }

  push(samples: Float32Array): Float32Array {
    if (this.gainDb === undefined) {
      this.pending.push(samples)
      this.pendingLength += samples.length
      if (this.pendingLength < MIN_MEASURE_SEC * this.rate) return new Float32Array(0)
      return this.release()
    }
    applyGainWithCeiling(samples, this.gainDb + this.extraDb)
    return samples
  }

  end(): Float32Array {
    return this.pending.length > 0 ? this.release() : new Float32Array(0)
  }

  /**
   * Sets the chunk's gain from audio measured elsewhere, if none is set yet: a streamed cloned voice measures
   * the engine's piece before Rubber Band (pitch and tempo changes keep loudness within a fraction of a dB),
   * so its first blocks need not wait for 0.4 s of processed audio.
   */
  measure(samples: Float32Array): void {
    if (this.gainDb === undefined && this.pending.length === 0) this.gainDb = loudnessGainDb(samples, this.rate, this.targetLufs)
  }

  private release(): Float32Array {
    // Pushed audio is the render loop's own (a copy or DSP output), so one piece is levelled in place.
    const joined = this.pending.length === 1 ? this.pending[0]! : concatSamples(this.pending)
    this.pending = []
    this.pendingLength = 0
    this.gainDb ??= loudnessGainDb(joined, this.rate, this.targetLufs) ?? 0
    applyGainWithCeiling(joined, this.gainDb + this.extraDb)
    return joined
  }
}
