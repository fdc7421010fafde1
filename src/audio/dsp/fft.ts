/**
 * In-place iterative radix-2 complex FFT for the analysis code (frames of 256..2048 points). Twiddles and
 * bit-reversal tables are cached per size, since analysis runs thousands of same-sized frames.
 */
interface FftTables {
  readonly cos: Float64Array
  readonly sin: Float64Array
  readonly rev: Uint32Array
}

const tables = new Map<number, FftTables>()

function tablesFor(n: number): FftTables {
  let t = tables.get(n)
  if (t) return t
  if (n < 2 || (n & (n - 1)) !== 0) throw new RangeError(`[dsp] FFT size must be a power of two, got ${n}`)
  const cos = new Float64Array(n / 2)
  const sin = new Float64Array(n / 2)
  for (let i = 0; i < n / 2; i++) {
    cos[i] = Math.cos((2 * Math.PI * i) / n)
    sin[i] = -Math.sin((2 * Math.PI * i) / n)
  }
  const bits = Math.log2(n)
  const rev = new Uint32Array(n)
  for (let i = 0; i < n; i++) {
    let r = 0
    for (let b = 0; b < bits; b++) r |= ((i >> b) & 1) << (bits - 1 - b)
    rev[i] = r
  }
  t = { cos, sin, rev }
  tables.set(n, t)
  return t
}

/** Forward FFT of (re, im) in place; both arrays have the same power-of-two length. */
export function fft(re: Float64Array, im: Float64Array): void {
  const n = re.length
  const { cos, sin, rev } = tablesFor(n)
  for (let i = 0; i < n; i++) {
    const j = rev[i]!
    if (j > i) {
      const tr = re[i]!
      re[i] = re[j]!
      re[j] = tr
      const ti = im[i]!
      im[i] = im[j]!
      im[j] = ti
    }
  }
  for (let size = 2; size <= n; size *= 2) {
    const half = size / 2
    const step = n / size
    for (let start = 0; start < n; start += size) {
      for (let k = 0; k < half; k++) {
        const wr = cos[k * step]!
        const wi = sin[k * step]!
        const a = start + k
        const b = a + half
        const xr = re[b]! * wr - im[b]! * wi
        const xi = re[b]! * wi + im[b]! * wr
        re[b] = re[a]! - xr
        im[b] = im[a]! - xi
        re[a] = re[a]! + xr
        im[a] = im[a]! + xi
      }
    }
  }
}

export function nextPow2(n: number): number {
  let p = 1
  while (p < n) p *= 2
  return p
}

/** Periodic Hann window of length `n`, cached. */
const hanns = new Map<number, Float64Array>()
export function hann(n: number): Float64Array {
  let w = hanns.get(n)
  if (!w) {
    w = new Float64Array(n)
    for (let i = 0; i < n; i++) w[i] = 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / n)
    hanns.set(n, w)
  }
  return w
}
