/**
 * Loudness after ITU-R BS.1770-4 for one channel: K-weighting (a high shelf and a high pass, coefficients
 * derived for any sample rate as in libebur128), 400 ms blocks with 75 % overlap, an absolute gate at
 * -70 LUFS and a relative gate 10 LU below. A 997 Hz full-scale sine reads -3.01 LUFS.
 */
export const DEFAULT_TARGET_LUFS = -20

interface Biquad {
  b0: number
  b1: number
  b2: number
  a1: number
  a2: number
  x1: number
  x2: number
  y1: number
  y2: number
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
  const state = { x1: 0, x2: 0, y1: 0, y2: 0 }
  return [{ ...shelf, ...state }, { ...highPass, ...state }]
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
  let acc = 0
  let accCount = 0
  return {
    push(samples) {
      // The two biquads inlined with their state in locals: this loop runs over every output sample.
      const { b0: sb0, b1: sb1, b2: sb2, a1: sa1, a2: sa2 } = shelf
      const { b0: hb0, b1: hb1, b2: hb2, a1: ha1, a2: ha2 } = highPass
      let { x1: sx1, x2: sx2, y1: sy1, y2: sy2 } = shelf
      let { x1: hx1, x2: hx2, y1: hy1, y2: hy2 } = highPass
      for (let i = 0; i < samples.length; i++) {
        const x = samples[i]!
        const s = sb0 * x + sb1 * sx1 + sb2 * sx2 - sa1 * sy1 - sa2 * sy2
        sx2 = sx1
        sx1 = x
        sy2 = sy1
        sy1 = s
        const y = hb0 * s + hb1 * hx1 + hb2 * hx2 - ha1 * hy1 - ha2 * hy2
        hx2 = hx1
        hx1 = s
        hy2 = hy1
        hy1 = y
        acc += y * y
        if (++accCount === hop) {
          hops.push(acc / hop)
          acc = 0
          accCount = 0
        }
      }
      Object.assign(shelf, { x1: sx1, x2: sx2, y1: sy1, y2: sy2 })
      Object.assign(highPass, { x1: hx1, x2: hx2, y1: hy1, y2: hy2 })
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
