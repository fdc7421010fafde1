import { invalidField } from '../../errors.js'
import { float32ToInt16 } from '../signal.js'

const LITTLE_ENDIAN_HOST = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1

/** Float samples as signed 16-bit little-endian bytes (clamped, rounded). */
export function toS16le(samples: Float32Array): Uint8Array {
  const ints = float32ToInt16(samples)
  if (LITTLE_ENDIAN_HOST) return new Uint8Array(ints.buffer, ints.byteOffset, ints.byteLength)
  const out = new Uint8Array(ints.length * 2)
  const view = new DataView(out.buffer)
  for (let i = 0; i < ints.length; i++) view.setInt16(i * 2, ints[i]!, true)
  return out
}

/** A 422 on `sample_rate` unless `rate` is a sane integer; the API validates first, this is the backstop. */
export function assertSampleRate(component: string, rate: number): void {
  if (!Number.isInteger(rate) || rate < 1000 || rate > 384_000) {
    const msg = `[${component}] must be an integer in 1000..384000 Hz, got ${rate}`
    throw invalidField(['body', 'sample_rate'], msg)
  }
}
