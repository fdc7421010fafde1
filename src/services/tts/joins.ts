/**
 * Seamless joins between pieces of audio. Each chunk's audio starts with a short fade-in and ends with a
 * short fade-out before its pause, so the sample jump at every join is bounded whatever the engine did.
 * The last few milliseconds of each piece are held back until the next piece (or the end) is known, which
 * is what lets the fade-out land on the true end of the chunk without delaying the stream noticeably.
 */
export const FADE_MS = 4

export class EdgeSmoother {
  private readonly fadeLength: number
  private tail = new Float32Array(0)
  private started = false

  constructor(sampleRate: number) {
    this.fadeLength = Math.max(1, Math.round((sampleRate * FADE_MS) / 1000))
  }

  /**
   * Returns what can be sent now; keeps the last `fadeLength` samples back. Works in `samples`, which the
   * caller hands over (the render loop's own audio): a block at least a fade long comes back as a view of
   * itself, shifted by the held-back tail, so no block allocates a new buffer. Fresh memory is what costs here:
   * on a virtual machine each new page faults in at 10 µs or more (docs/benchmarks.md, "Neural engines").
   */
  push(samples: Float32Array): Float32Array {
    if (samples.length === 0) return samples
    const f = this.fadeLength
    const n = samples.length
    const t = this.tail.length
    if (n < f || (!this.started && t > 0)) return this.pushJoined(samples)
    if (!this.started) {
      for (let i = 0; i < f; i++) samples[i]! *= i / f
      this.started = true
    }
    const kept = samples.slice(n - f)
    samples.copyWithin(t, 0, n - f)
    samples.set(this.tail)
    this.tail = kept
    return samples.subarray(0, t + n - f)
  }

  /** Fades out and returns the held-back tail; the smoother is ready for the next chunk. */
  end(): Float32Array {
    const out = this.tail
    const n = out.length
    if (!this.started) for (let i = 0; i < n; i++) out[i]! *= i / Math.max(1, n)
    for (let i = 0; i < n; i++) out[i]! *= (n - i - 1) / Math.max(1, n)
    this.tail = new Float32Array(0)
    this.started = false
    return out
  }

  /** A block shorter than the fade, or audio before the fade-in is complete: joined with the tail in a copy. */
  private pushJoined(samples: Float32Array): Float32Array {
    const joined = new Float32Array(this.tail.length + samples.length)
    joined.set(this.tail)
    joined.set(samples, this.tail.length)
    if (!this.started && joined.length >= this.fadeLength) {
      for (let i = 0; i < this.fadeLength; i++) joined[i]! *= i / this.fadeLength
      this.started = true
    }
    if (!this.started) {
      this.tail = joined
      return new Float32Array(0)
    }
    const keep = Math.min(this.fadeLength, joined.length)
    this.tail = joined.slice(joined.length - keep)
    return joined.subarray(0, joined.length - keep)
  }
}
