/**
 * YIN (de Cheveigné & Kawahara 2002) as pitchfinder implements it (same window, the same constant 1 that
 * seeds the cumulative mean, threshold, "walk down to the local minimum" and parabolic refinement), but
 * lazy: the difference function is computed lag by lag and stops just past the first dip below the
 * threshold. For a 170 Hz voice at 8 kHz that is ~50 of 128 lags, so voiced frames cost less than half;
 * buffers are reused instead of allocated per frame.
 */
export interface YinDetector {
  /** F0 in Hz of the frame's first `2 ** floor(log2(length - 1))` samples, or null when it is not periodic. */
  (frame: Float32Array): number | null
}

export function createYin(sampleRate: number, threshold = 0.15): YinDetector {
  let size = 0
  let d = new Float64Array(0)
  return (frame) => {
    let bufferSize = 1
    while (bufferSize < frame.length) bufferSize *= 2
    bufferSize /= 2
    const half = bufferSize / 2
    if (half !== size) {
      size = half
      d = new Float64Array(half + 1)
    }
    // Cumulative mean normalized difference for lag `t` (t >= 2), computed on demand in order.
    let computed = 1
    let runningSum = 1 // pitchfinder: lag 1 is set to 1 and counted into the running sum
    const cmnd = (t: number): number => {
      while (computed < t) {
        const lag = ++computed
        let sum = 0
        for (let i = 0; i < half; i++) {
          const delta = frame[i]! - frame[i + lag]!
          sum += delta * delta
        }
        runningSum += sum
        d[lag] = (sum * lag) / runningSum
      }
      return d[t]!
    }
    let tau = 2
    for (; tau < half; tau++) {
      if (cmnd(tau) < threshold) {
        while (tau + 1 < half && cmnd(tau + 1) < cmnd(tau)) tau++
        break
      }
    }
    if (tau >= half || cmnd(tau) >= threshold) return null
    // Parabolic refinement around the minimum.
    const x0 = tau - 1
    const x2 = tau + 1 < half ? tau + 1 : tau
    let better: number
    if (x2 === tau) better = cmnd(tau) <= cmnd(x0) ? tau : x0
    else {
      const s0 = x0 >= 2 ? cmnd(x0) : 1
      const s1 = cmnd(tau)
      const s2 = cmnd(x2)
      better = tau + (s2 - s0) / (2 * (2 * s1 - s2 - s0))
    }
    return sampleRate / better
  }
}
