/**
 * A pull reader of one large JSON document, from a file descriptor in chunks, for documents too big for one
 * JavaScript string (heap snapshots). It walks values without building them: arrays of integers and of strings
 * are handed over one element at a time, any other value is skipped or, when small, built with `JSON.parse` of
 * its own bytes. Strings are decoded from their complete bytes, so a UTF-8 character or an escape split
 * between two chunks reads right.
 */
import { readSync } from 'node:fs'

const QUOTE = 0x22
const BACKSLASH = 0x5c
const COMMA = 0x2c
const COLON = 0x3a
const MINUS = 0x2d
const OPEN = new Set([0x5b, 0x7b]) // [ {
const CLOSE = new Set([0x5d, 0x7d]) // ] }
const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09
const isDigit = (c: number) => c >= 0x30 && c <= 0x39

export class JsonBytes {
  private readonly buf: Buffer
  private pos = 0
  private end = 0
  /** Bytes of the file before `buf`, for error messages. */
  private before = 0
  /** While a value is captured: its bytes from earlier chunks, and where it starts in this one. */
  private captured: Buffer[] | undefined
  private captureFrom = 0

  private readonly fd: number

  constructor(fd: number, chunkBytes: number) {
    this.fd = fd
    this.buf = Buffer.alloc(chunkBytes)
  }

  /** Consumes `byte` (after any white space), or throws. */
  expect(byte: number): void {
    const c = this.skipSpace()
    if (c !== byte) this.fail(`expected '${String.fromCharCode(byte)}'`)
    this.pos++
  }

  /** After an object's `{`: calls `onMember(key)` for each member; it must consume the member's value. */
  eachMember(onMember: (key: string) => void): void {
    if (this.skipSpace() === 0x7d) {
      this.pos++
      return
    }
    for (;;) {
      this.expect(QUOTE)
      const key = this.string(true)!
      this.expect(COLON)
      onMember(key)
      if (this.endOfList(0x7d)) return
    }
  }

  /** The next value, built (for small values only: its bytes become one string). */
  value(): unknown {
    this.skipSpace()
    this.captured = []
    this.captureFrom = this.pos
    this.skip()
    const bytes = Buffer.concat([...this.captured, this.buf.subarray(this.captureFrom, this.pos)])
    this.captured = undefined
    return JSON.parse(bytes.toString('utf8'))
  }

  /** Skips the next value, whatever it is. */
  skip(): void {
    let depth = 0
    let c = this.skipSpace()
    if (!OPEN.has(c)) {
      if (c === QUOTE) {
        this.pos++
        this.string(false)
        return
      }
      // A number, true, false or null: runs until a delimiter.
      while (c !== -1 && c !== COMMA && !CLOSE.has(c) && !isSpace(c)) c = this.advance()
      return
    }
    do {
      if (c === QUOTE) {
        this.pos++
        this.string(false)
        c = this.peek()
        continue
      }
      if (OPEN.has(c)) depth++
      else if (CLOSE.has(c)) depth--
      else if (c === -1) this.fail('the document ends inside a value')
      c = this.advance()
    } while (depth > 0)
  }

  /** An array of integers: calls `onNumber` with each. */
  numbers(onNumber: (n: number) => void): void {
    this.expect(0x5b)
    if (this.skipSpace() === 0x5d) {
      this.pos++
      return
    }
    do {
      let c = this.skipSpace()
      const negative = c === MINUS
      if (negative) c = this.advance()
      let value = 0
      let digits = 0
      while (isDigit(c)) {
        value = value * 10 + (c - 0x30)
        digits++
        c = this.advance()
      }
      if (digits === 0) this.fail('expected an integer')
      onNumber(negative ? -value : value)
    } while (!this.endOfList(0x5d))
  }

  /** An array of strings: those at the `wanted` indices, decoded; the rest skipped. */
  strings(wanted: ReadonlySet<number>): Map<number, string> {
    const found = new Map<number, string>()
    this.expect(0x5b)
    if (this.skipSpace() === 0x5d) {
      this.pos++
      return found
    }
    let index = 0
    do {
      this.expect(QUOTE)
      const s = this.string(wanted.has(index))
      if (s !== undefined) found.set(index, s)
      index++
    } while (!this.endOfList(0x5d))
    return found
  }

  /** After a list element: consumes `,` (false) or the list's closing byte (true). */
  private endOfList(close: number): boolean {
    const c = this.skipSpace()
    if (c !== COMMA && c !== close) this.fail(`expected ',' or '${String.fromCharCode(close)}'`)
    this.pos++
    return c === close
  }

  /** The rest of a string whose opening quote is consumed; decoded when `keep`. */
  private string(keep: boolean): string | undefined {
    const parts: Buffer[] = []
    let escaped = false
    for (;;) {
      if (this.pos >= this.end && !this.refill()) this.fail('the document ends inside a string')
      const { buf, end, pos: start } = this
      let i = start
      for (; i < end; i++) {
        const c = buf[i]!
        if (escaped) escaped = false
        else if (c === BACKSLASH) escaped = true
        else if (c === QUOTE) break
      }
      if (i === end) {
        // The chunk is reused by the next read: keep a copy.
        if (keep) parts.push(Buffer.from(buf.subarray(start, end)))
        this.pos = end
        continue
      }
      this.pos = i + 1
      if (!keep) return undefined
      parts.push(buf.subarray(start, i))
      return JSON.parse(`"${Buffer.concat(parts).toString('utf8')}"`) as string
    }
  }

  /** The byte at the read position after any white space, or -1 at the end of the file. */
  private skipSpace(): number {
    let c = this.peek()
    while (isSpace(c)) c = this.advance()
    return c
  }

  private peek(): number {
    if (this.pos >= this.end && !this.refill()) return -1
    return this.buf[this.pos]!
  }

  /** Moves past the byte at the read position; the next one, or -1. */
  private advance(): number {
    this.pos++
    return this.peek()
  }

  private refill(): boolean {
    if (this.captured) this.captured.push(Buffer.from(this.buf.subarray(this.captureFrom, this.end)))
    this.before += this.end
    this.end = readSync(this.fd, this.buf, 0, this.buf.length, null)
    this.pos = 0
    this.captureFrom = 0
    return this.end > 0
  }

  private fail(what: string): never {
    throw new Error(`heap snapshot: ${what} at byte ${this.before + this.pos}`)
  }
}
