/** Hostile values shared by the surface modules: strings, numbers, JSON and bytes that break naive parsers. */
import fc from 'fast-check'

export const nastyStrings = [
  '', ' ', ')', '...', '\ud800', '\udfff\ud800', '\u0000', '\u200b', '\r\n', '\t', '%', '%00', '%zz', '..', '../..', '/',
  '../../etc/passwd', '\\', '"', "'", '<script>', '(happy)', '[whispers]', '<|speaker:99|>', '<|speaker:-1|>', '{}', '[]',
  'null', 'true', '-1', '0', '1e309', 'NaN', '日本語のテキスト', '🙂', 'a'.repeat(600), '__proto__', 'constructor',
]

export const hostileString = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...nastyStrings) },
  { weight: 2, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
)

export const hostileNumber = fc.oneof(
  fc.constantFrom(0, -1, 1, 0.5, 2 ** 31, -(2 ** 53), 2 ** 53 + 2, 1e308, -0, 8000, 48000, 100, 300),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
)

/** Any JSON value, weighted towards the wrong-type cases validators have to catch. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: hostileString },
  { weight: 2, arbitrary: hostileNumber },
  { weight: 1, arbitrary: fc.constantFrom(null, true, false, [], {}, [null], { '': 1 }) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
)

/** A field that is usually a plausible value and sometimes hostile. */
export const field = <T>(valid: fc.Arbitrary<T>) => fc.oneof({ weight: 3, arbitrary: valid }, { weight: 1, arbitrary: hostileValue })

export const hostileBytes = fc.oneof(
  fc.uint8Array({ maxLength: 256 }),
  fc.constantFrom(new Uint8Array(0), Uint8Array.from([0xc1]), Uint8Array.from([0xdf, 0xff, 0xff, 0xff, 0xff]), Uint8Array.from([0x91])),
)

/** Byte-level damage to a valid file: flips, truncation, overwritten header fields, splices. */
export const corruption = fc.oneof(
  fc.record({ kind: fc.constant('flip' as const), at: fc.array(fc.nat(), { minLength: 1, maxLength: 12 }), value: fc.integer({ min: 0, max: 255 }) }),
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('header' as const), at: fc.nat({ max: 60 }), value: fc.constantFrom(0, 0xffffffff, 0x7fffffff, 1, 3) }),
  fc.record({ kind: fc.constant('splice' as const), at: fc.nat(), bytes: fc.uint8Array({ maxLength: 64 }) }),
)

export function corrupt(file: Uint8Array, c: CorruptionValue): Uint8Array {
  const out = Uint8Array.from(file)
  if (c.kind === 'flip') {
    for (const at of c.at) out[at % out.length] = c.value
    return out
  }
  if (c.kind === 'truncate') return out.subarray(0, c.at % (out.length + 1))
  if (c.kind === 'header') {
    if (c.at + 4 <= out.length) new DataView(out.buffer).setUint32(c.at, c.value, true)
    return out
  }
  const at = c.at % (out.length + 1)
  return Uint8Array.from([...out.subarray(0, at), ...c.bytes, ...out.subarray(at)])
}

export type CorruptionValue =
  | { kind: 'flip'; at: number[]; value: number }
  | { kind: 'truncate'; at: number }
  | { kind: 'header'; at: number; value: number }
  | { kind: 'splice'; at: number; bytes: Uint8Array }
