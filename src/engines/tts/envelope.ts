import { SILENCE_LEVEL } from './silence.js'

/** Peak level per ~5 ms frame of a growing stream, to find where speech lies inside a word's span. */
export class Envelope {
  readonly #frame: number
  readonly #frameSec: number
  readonly #peaks: number[] = []
  #partial = 0
  #partialPeak = 0

  constructor(sampleRate: number) {
    this.#frame = Math.max(1, Math.round(sampleRate * 0.005))
    this.#frameSec = this.#frame / sampleRate
  }

  push(samples: Float32Array): void {
    for (let i = 0; i < samples.length; i++) {
      const a = Math.abs(samples[i]!)
      if (a > this.#partialPeak) this.#partialPeak = a
      if (++this.#partial === this.#frame) {
        this.#peaks.push(this.#partialPeak)
        this.#partial = 0
        this.#partialPeak = 0
      }
    }
  }

  /**
   * Shrinks [start, end) (seconds) to the loud frames inside it, with a 10 ms margin; returns the span unchanged
   * when it holds no loud frame (a word made of silence is better left where the engine put it).
   */
  tighten(start: number, end: number): { start: number; end: number } {
    const f0 = Math.max(0, Math.floor(start / this.#frameSec))
    const f1 = Math.min(this.#peaks.length, Math.ceil(end / this.#frameSec))
    let a = f0
    while (a < f1 && this.#peaks[a]! < SILENCE_LEVEL) a++
    if (a >= f1) return { start, end }
    let b = f1 - 1
    while (b > a && this.#peaks[b]! < SILENCE_LEVEL) b--
    const margin = 0.01
    return {
      start: Math.max(start, a * this.#frameSec - margin),
      end: Math.min(end, (b + 1) * this.#frameSec + margin),
    }
  }
}
