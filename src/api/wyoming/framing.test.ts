import { describe, expect, it } from 'vitest'
import { createEventReader, encodeEvent, FramingError } from './framing.js'

describe('Wyoming framing', () => {
  const events = [
    encodeEvent('describe'),
    encodeEvent('audio-chunk', { rate: 16000, width: 2, channels: 1 }, new Uint8Array([1, 2, 3, 4, 0x0a, 0x7b])),
    encodeEvent('synthesize', { text: 'Grüße, “quoted”\nline two', voice: { name: 'festival-slt' } }),
  ]
  const stream = Buffer.concat(events)

  it('reads the same events whether the bytes come at once or one at a time', () => {
    const whole = createEventReader().push(stream)
    const reader = createEventReader()
    const bytewise = [...stream].flatMap((b) => reader.push(new Uint8Array([b])))
    expect(bytewise).toEqual(whole)
    expect(whole.map((e) => (e as { type: string }).type)).toEqual(['describe', 'audio-chunk', 'synthesize'])
    expect(whole[1]).toMatchObject({ data: { rate: 16000 }, payload: new Uint8Array([1, 2, 3, 4, 0x0a, 0x7b]) })
    expect(whole[2]).toMatchObject({ data: { text: 'Grüße, “quoted”\nline two' } })
  })

  it('writes the header line with version and lengths, data after it', () => {
    const bytes = encodeEvent('transcript', { text: 'hi' })
    const [header, data] = bytes.toString().split('\n')
    expect(JSON.parse(header!)).toEqual({ type: 'transcript', version: '1.8.0', data_length: data!.length })
    expect(JSON.parse(data!)).toEqual({ text: 'hi' })
  })

  it('merges data in the header with data after it; skips a bad line and goes on', () => {
    const reader = createEventReader()
    const data = Buffer.from('{"b": 2}')
    const out = reader.push(Buffer.concat([
      Buffer.from('not json\n["array"]\n{"data": {}}\n'),
      Buffer.from(`{"type": "x", "data": {"a": 1, "b": 1}, "data_length": ${data.length}}\n`), data,
    ]))
    expect(out.slice(0, 3).every((e) => e instanceof FramingError && !e.fatal)).toBe(true)
    expect(out[3]).toEqual({ type: 'x', data: { a: 1, b: 2 } })
  })

  it('a negative or huge length, or an endless header, is fatal and the reader stops', () => {
    for (const line of ['{"type": "a", "payload_length": -1}\n', '{"type": "a", "data_length": 1e12}\n']) {
      const reader = createEventReader()
      const [err] = reader.push(Buffer.from(line))
      expect(err).toBeInstanceOf(FramingError)
      expect((err as FramingError).fatal).toBe(true)
      expect(reader.push(encodeEvent('describe'))).toEqual([])
    }
    const reader = createEventReader()
    const out = reader.push(Buffer.alloc(70 * 1024, 0x61))
    expect((out[0] as FramingError).fatal).toBe(true)
    // The same over-long header with its newline in the same read is refused alike (found by fuzzing).
    const whole = createEventReader().push(Buffer.concat([Buffer.alloc(70 * 1024, 0x61), Buffer.from('\n'), encodeEvent('describe')]))
    expect(whole).toHaveLength(1)
    expect((whole[0] as FramingError).fatal).toBe(true)
  })
})
