/**
 * Loudness after ITU-R BS.1770-4 for one channel: K-weighting (a high shelf and a high pass, coefficients
 * derived for any sample rate as in libebur128), 400 ms blocks with 75 % overlap, an absolute gate at
 * -70 LUFS and a relative gate 10 LU below. A 997 Hz full-scale sine reads -3.01 LUFS.
 */
export const DEFAULT_TARGET_LUFS = -20

/** One biquad's coefficients (a0 = 1). */
interface Biquad {
  readonly b0: number
  readonly b1: number
  readonly b2: number
  readonly a1: number
  readonly a2: number
}

function kWeighting(rate: number): [Biquad, Biquad] {
  let k = Math.tan((Math.PI * 1681.974450955533) / rate)
  const q1 = 0.7071752369554196
  const vh = 10 ** (3.999843853973347 / 20)
  const vb = vh ** 0.4996667741545416
  let a0 = 1 + k / q1 + k * k
  const shelf = {
    b0: (vh + (vb * k) / q1 + k * k) / a0,
    b1: (2 * (k * k - vh)) / a0,
    b2: (vh - (vb * k) / q1 + k * k) / a0,
    a1: (2 * (k * k - 1)) / a0,
    a2: (1 - k / q1 + k * k) / a0,
  }
  k = Math.tan((Math.PI * 38.13547087602444) / rate)
  const q2 = 0.5003270373238773
  a0 = 1 + k / q2 + k * k
  const highPass = { b0: 1, b1: -2, b2: 1, a1: (2 * (k * k - 1)) / a0, a2: (1 - k / q2 + k * k) / a0 }
  return [shelf, highPass]
}

const toLufs = (meanSquare: number): number =>
  meanSquare > 0 ? -0.691 + 10 * Math.log10(meanSquare) : -Infinity

export interface LoudnessMeter {
  push(samples: Float32Array): void
  /** Gated integrated loudness of everything pushed so far, in LUFS; -Infinity while silent. */
  integrated(): number
}

/** A streaming meter: state is the filter memory plus one number per 100 ms of audio. */
export function createLoudnessMeter(sampleRate: number): LoudnessMeter {
  const [shelf, highPass] = kWeighting(sampleRate)
  const hop = Math.round(sampleRate / 10)
  const hops: number[] = [] // mean square of each complete 100 ms hop
  // Filter memory (transposed direct form II: two state values per biquad) and the hop being summed.
  let s1 = 0
  let s2 = 0
  let h1 = 0
  let h2 = 0
  let acc = 0
  let accCount = 0
  return {
    push(samples) {
      // This loop runs over every output sample: coefficients and state in locals, and one inner loop per
      // hop with no test in it (measured 1.4 → 0.7 ms per 6 s at 24 kHz against a per-sample hop test).
      const { b0: sb0, b1: sb1, b2: sb2, a1: sa1, a2: sa2 } = shelf
      const { b0: hb0, b1: hb1, b2: hb2, a1: ha1, a2: ha2 } = highPass
      let z1 = s1
      let z2 = s2
      let w1 = h1
      let w2 = h2
      let at = 0
      while (at < samples.length) {
        const end = Math.min(samples.length, at + hop - accCount)
        let sum = 0
        for (let i = at; i < end; i++) {
          const x = samples[i]!
          const s = sb0 * x + z1
          z1 = sb1 * x - sa1 * s + z2
          z2 = sb2 * x - sa2 * s
          const y = hb0 * s + w1
          w1 = hb1 * s - ha1 * y + w2
          w2 = hb2 * s - ha2 * y
          sum += y * y
        }
        acc += sum
        accCount += end - at
        at = end
        if (accCount === hop) {
          hops.push(acc / hop)
          acc = 0
          accCount = 0
        }
      }
      s1 = z1
      s2 = z2
      h1 = w1
      h2 = w2
    },
    integrated() {
      const blocks: number[] = []
      for (let i = 3; i < hops.length; i++) {
        blocks.push((hops[i]! + hops[i - 1]! + hops[i - 2]! + hops[i - 3]!) / 4)
      }
      // Shorter than one block: fall back to the ungated mean so short chunks still get a reading.
      if (blocks.length === 0) {
        const total = hops.reduce((s, x) => s + x * hop, acc)
        const count = hops.length * hop + accCount
        return count > 0 ? toLufs(total / count) : -Infinity
      }
      const loud = blocks.filter((z) => toLufs(z) > -70)
      if (loud.length === 0) return -Infinity
      const relativeGate = toLufs(loud.reduce((s, z) => s + z, 0) / loud.length) - 10
      const gated = loud.filter((z) => toLufs(z) > relativeGate)
      return toLufs(gated.reduce((s, z) => s + z, 0) / gated.length)
    },
  }
}

export function measureLoudness(samples: Float32Array, sampleRate: number): number {
  const meter = createLoudnessMeter(sampleRate)
  meter.push(samples)
  return meter.integrated()
}
