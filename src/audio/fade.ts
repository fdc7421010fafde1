import { SpeechError } from '../errors.js'
import type { AudioBuffer } from './types.js'

/** Helpers for joining chunks of speech without clicks. All return new arrays. */

export function silence(seconds: number, sampleRate: number): Float32Array {
  return new Float32Array(Math.max(0, Math.round(seconds * sampleRate)))
}

/** Raised-cosine gain for position `t` in [0, 1]: 0 -> 1 with zero slope at both ends. */
const rise = (t: number): number => 0.5 - 0.5 * Math.cos(Math.PI * t)

export interface FadeOptions {
  readonly inMs?: number
  readonly outMs?: number
}

/**
 * Fades the first `inMs` in and the last `outMs` out (default 5 ms each) so a chunk that starts or stops
 * mid-waveform does not click where it meets silence or another chunk.
 */
export function fadeEdges(samples: Float32Array, sampleRate: number, options: FadeOptions = {}): Float32Array {
  const out = samples.slice()
  const half = Math.floor(out.length / 2)
  const fadeIn = Math.min(half, Math.round(((options.inMs ?? 5) * sampleRate) / 1000))
  const fadeOut = Math.min(half, Math.round(((options.outMs ?? 5) * sampleRate) / 1000))
  for (let i = 0; i < fadeIn; i++) out[i]! *= rise(i / fadeIn)
  for (let i = 0; i < fadeOut; i++) out[out.length - 1 - i]! *= rise(i / fadeOut)
  return out
}

export type CrossfadeCurve = 'equal-power' | 'linear'

/** Mixes `a`'s tail into `b`'s head. Equal power suits unrelated audio; linear suits a continuation. */
function mixOverlap(tail: Float32Array, head: Float32Array, curve: CrossfadeCurve): Float32Array {
  const n = tail.length
  const out = new Float32Array(n)
  for (let i = 0; i < n; i++) {
    const t = (i + 0.5) / n
    const gainIn = curve === 'linear' ? t : Math.sin((Math.PI / 2) * t)
    const gainOut = curve === 'linear' ? 1 - t : Math.cos((Math.PI / 2) * t)
    out[i] = tail[i]! * gainOut + head[i]! * gainIn
  }
  return out
}

/** Joins `a` and `b`, overlapping `ms` (shortened to fit the shorter input). Result length: a + b - overlap. */
export function crossfade(
  a: AudioBuffer,
  b: AudioBuffer,
  ms: number,
  curve: CrossfadeCurve = 'equal-power',
): AudioBuffer {
  if (a.sampleRate !== b.sampleRate) {
    const msg = `[audio] crossfade needs one rate, got ${a.sampleRate} and ${b.sampleRate}`
    throw new SpeechError('internal_error', msg)
  }
  const overlap = Math.min(a.samples.length, b.samples.length, Math.round((ms * a.sampleRate) / 1000))
  const out = new Float32Array(a.samples.length + b.samples.length - overlap)
  const headStart = a.samples.length - overlap
  out.set(a.samples.subarray(0, headStart))
  out.set(mixOverlap(a.samples.subarray(headStart), b.samples.subarray(0, overlap), curve), headStart)
  out.set(b.samples.subarray(overlap), a.samples.length)
  return { samples: out, sampleRate: a.sampleRate }
}

export interface ChunkJoiner {
  /** Returns what is final so far: everything but the last `ms`, held back to blend with the next chunk. */
  push(samples: Float32Array): Float32Array
  flush(): Float32Array
}

/** Streaming `crossfade`: each chunk's tail is held back and blended into the next chunk's head. */
export function createChunkJoiner(
  sampleRate: number,
  ms: number,
  curve: CrossfadeCurve = 'equal-power',
): ChunkJoiner {
  const hold = Math.round((ms * sampleRate) / 1000)
  let tail = new Float32Array(0)
  return {
    push(samples) {
      const joined =
        tail.length === 0
          ? samples
          : crossfade({ samples: tail, sampleRate }, { samples, sampleRate }, ms, curve).samples
      const keep = Math.min(hold, samples.length)
      tail = joined.slice(joined.length - keep)
      return joined.slice(0, joined.length - keep)
    },
    flush() {
      const rest = tail
      tail = new Float32Array(0)
      return rest
    },
  }
}
