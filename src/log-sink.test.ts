import { execFileSync } from 'node:child_process'
import { closeSync, constants, mkdtempSync, openSync, readSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { openLogSink } from './log-sink.js'

/** The log's sink on a real pipe (a FIFO) whose reader does not read, then leaves. */
const fds: number[] = []
let dir: string | undefined
afterEach(() => {
  for (const fd of fds.splice(0)) closeSync(fd)
  if (dir) rmSync(dir, { recursive: true, force: true })
})

function pipe(): { reader: number; writer: number } {
  dir = mkdtempSync(join(tmpdir(), 'parla-log-sink-'))
  const fifo = join(dir, 'fifo')
  execFileSync('mkfifo', [fifo])
  const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK)
  // Blocking, as a shell hands it over: the sink must not wait on it all the same.
  const writer = openSync(fifo, constants.O_WRONLY)
  return { reader, writer }
}

const line = (i: number) => `${JSON.stringify({ i, msg: 'x'.repeat(1000) })}\n`

describe('openLogSink on a pipe', () => {
  it('holds at most maxHeldBytes for a reader that does not read, drops the rest, and never blocks', () => {
    const { reader, writer } = pipe()
    fds.push(reader, writer)
    const reasons: string[] = []
    const sink = openLogSink(writer, { maxHeldBytes: 64 * 1024, onFirstDrop: (r) => reasons.push(r) })
    for (let i = 0; i < 1000; i++) sink.write(line(i))
    // 64 KiB in the pipe and 64 KiB held: of ~1 MB, most was dropped, and said once.
    expect(sink.dropped).toBeGreaterThan(800)
    expect(sink.dropped).toBeLessThan(1000)
    expect(reasons).toEqual(['the reader of standard output is not keeping up'])
    // What the pipe took starts with the first line, whole.
    const buf = Buffer.alloc(2000)
    const n = readSync(reader, buf)
    expect(buf.subarray(0, n).toString().split('\n')[0]).toBe(line(0).trimEnd())
  })

  it('drops and counts every line once the reader is gone, without throwing', () => {
    const { reader, writer } = pipe()
    fds.push(writer)
    const sink = openLogSink(writer, { onFirstDrop: () => {} })
    sink.write(line(0))
    closeSync(reader)
    for (let i = 1; i <= 10; i++) sink.write(line(i))
    expect(sink.dropped).toBe(10)
  })
})
