import { describe, expect, it } from 'vitest'
import { HOSTILE_TEXT } from '../../../../test/support/tts-engine-kit.js'
import { FestivalOutput } from './protocol.js'
import { sayCommand, schemeString } from './scheme.js'

/** Reads one Scheme string literal the way festival's reader does (only `\\` escapes). */
function readLiteral(src: string, from: number): { value: string; end: number } {
  expect(src[from]).toBe('"')
  let value = ''
  for (let i = from + 1; i < src.length; i++) {
    const c = src[i]!
    if (c === '\\') value += src[++i]!
    else if (c === '"') return { value, end: i + 1 }
    else value += c
  }
  throw new Error('unterminated string')
}

describe('festival Scheme', () => {
  it('keeps hostile text inside one string literal, with offsets preserved', () => {
    const literal = schemeString(HOSTILE_TEXT)
    const { value, end } = readLiteral(literal, 0)
    expect(end).toBe(literal.length)
    expect(value.length).toBe(HOSTILE_TEXT.length)
    expect(value).toMatch(/^[\x20-\x7e]*$/)
    expect(value.slice(0, 12)).toBe('(quit) ") (s')
  })

  it('builds one command per request with a safe id and a clamped rate', () => {
    const cmd = sayCommand('r7', 'a "b" \\ c\nd', 9)
    expect(cmd).toBe('(parla_say "r7" "a \\"b\\" \\\\ c d" 4.0000)\n')
    expect(cmd.split('\n').length).toBe(2)
    expect(() => sayCommand('r7") (quit', 'x', 1)).toThrow()
  })
})

describe('festival output parser', () => {
  it('reads markers and a RIFF file split across arbitrary chunks', () => {
    const riff = Buffer.alloc(48)
    riff.write('RIFF', 0)
    riff.writeUInt32LE(40, 4)
    riff.write('WAVE', 8)
    riff[47] = 10 // a newline byte inside the audio must not be taken as a line end
    const stream = Buffer.concat([
      Buffer.from('noise\n@@READY\n@@W\thello\tHello,\t0.1\t0.4\n@@WAVE\n'),
      riff,
      Buffer.from('@@OK r1\n'),
    ])
    for (const size of [1, 7, stream.length]) {
      const parser = new FestivalOutput()
      const events = []
      for (let i = 0; i < stream.length; i += size) events.push(...parser.push(stream.subarray(i, i + size)))
      expect(events.map((e) => e.type)).toEqual(['ready', 'word', 'wave', 'ok'])
      expect(events[1]).toEqual({ type: 'word', word: { name: 'hello', token: 'Hello,', start: 0.1, end: 0.4 } })
      expect((events[2] as { bytes: Uint8Array }).bytes.length).toBe(48)
    }
  })
})
