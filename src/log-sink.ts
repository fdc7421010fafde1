import { closeSync, constants, fstatSync, openSync, writeSync } from 'node:fs'
import koffi from 'koffi'

/**
 * Where the log's lines go: standard output, written so that the process never waits for its reader. A log
 * reader that stops reading (a stuck log shipper, a stopped `| less`) or goes away (`| head -c 1`, a restarted
 * shipper) must neither stall the server nor end it: pino's default destination buffered without limit and, at
 * exit, retried a write to the full pipe in a loop of timed sleeps on the main thread forever, and Node's own
 * `process.stdout` ends the process on EPIPE unless told otherwise. Here, on a pipe, lines are written
 * through a non-blocking file description of the sink's own (libuv makes the shared standard output blocking
 * whenever a child inherits it), at most `maxHeldBytes` wait for a slow reader, and the rest are dropped and
 * counted (`parla_log_lines_dropped_total`), with one line on standard error the first time, if it can.
 * Regular files and terminals are written directly, as before.
 */
export interface LogSink {
  /** One log line (or any text); never throws, never blocks on a pipe. */
  write(text: string): void
  /** Lines dropped so far because the reader was gone or did not keep up. */
  readonly dropped: number
}

export interface LogSinkOptions {
  /** What may wait for a reader that is slow (default 1 MiB); beyond that, lines are dropped. */
  readonly maxHeldBytes?: number
  /** Called once, at the first dropped line (the default says so on standard error). */
  readonly onFirstDrop?: (reason: string) => void
}

const RETRY_MS = 50
const DEFAULT_MAX_HELD = 1 << 20

export function openLogSink(fd: number, options: LogSinkOptions = {}): LogSink {
  const maxHeld = options.maxHeldBytes ?? DEFAULT_MAX_HELD
  const onFirstDrop = options.onFirstDrop ?? ((reason) => tellStderr(`parla: log lines are being dropped (${reason}); they are counted in parla_log_lines_dropped_total on /metrics\n`))
  let stat
  try {
    stat = fstatSync(fd)
  } catch {
    return boundedSink(undefined, undefined, maxHeld, onFirstDrop)
  }
  if (stat.isSocket()) {
    const send = socketSend(fd)
    if (send) return boundedSink(send, undefined, maxHeld, onFirstDrop)
  }
  if (!stat.isFIFO()) return directSink(fd, onFirstDrop)
  try {
    const own = openSync(`/proc/self/fd/${fd}`, constants.O_WRONLY | constants.O_NONBLOCK)
    return boundedSink((bytes) => writeSync(own, bytes), () => closeQuietly(own), maxHeld, onFirstDrop)
  } catch {
    // ENXIO: nobody holds the pipe's reading end any more, so whatever is written is lost anyway.
    return boundedSink(undefined, undefined, maxHeld, onFirstDrop)
  }
}

/** Writes what `fd` takes now; throws EAGAIN (full) or EPIPE (the reader left). */
type WriteNow = (bytes: Buffer) => number

/**
 * A socket (what Node's `spawn` gives a child for `stdio: 'pipe'`, systemd's journal stream) cannot be opened
 * again, and Node writes to a socket on standard output synchronously: `send` with MSG_DONTWAIT (libc, through
 * koffi) never waits, whatever the socket's shared flags say. Undefined when libc cannot be reached.
 */
function socketSend(fd: number): WriteNow | undefined {
  const MSG_DONTWAIT = 0x40
  const MSG_NOSIGNAL = 0x4000
  const ERRNO: Record<number, string> = { 11: 'EAGAIN', 4: 'EINTR', 32: 'EPIPE' }
  try {
    const send = koffi.load('libc.so.6').func('long send(int, const uint8_t *, size_t, int)')
    return (bytes) => {
      const n = Number(send(fd, bytes, bytes.length, MSG_DONTWAIT | MSG_NOSIGNAL))
      if (n >= 0) return n
      const err = new Error('send failed') as NodeJS.ErrnoException
      err.code = ERRNO[koffi.errno()] ?? `errno ${koffi.errno()}`
      throw err
    }
  } catch {
    return undefined
  }
}

/** Non-blocking writes (undefined: the reader is gone); what the reader does not take now waits, bounded. */
function boundedSink(writeNow: WriteNow | undefined, close: (() => void) | undefined, maxHeld: number, onFirstDrop: (reason: string) => void): LogSink {
  let write = writeNow
  const held: Buffer[] = []
  let heldBytes = 0
  let dropped = 0
  let retry: NodeJS.Timeout | undefined
  const drop = (lines: number, reason: string) => {
    if (dropped === 0) onFirstDrop(reason)
    dropped += lines
  }
  /** Bytes the pipe took; -1 when the reader is gone (then everything held is dropped). */
  const tryWrite = (bytes: Buffer): number => {
    if (write === undefined) return -1
    try {
      return write(bytes)
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code
      if (code === 'EAGAIN' || code === 'EWOULDBLOCK' || code === 'EINTR') return 0
      // EPIPE (the reader left) or anything else: this destination takes nothing more.
      close?.()
      write = undefined
      if (held.length > 0) drop(held.length, 'the reader of standard output is gone')
      held.length = 0
      heldBytes = 0
      return -1
    }
  }
  const flush = () => {
    retry = undefined
    while (held.length > 0) {
      const n = tryWrite(held[0]!)
      if (n < 0) return
      heldBytes -= n
      if (n < held[0]!.length) {
        held[0] = held[0]!.subarray(n)
        retry = setTimeout(flush, RETRY_MS).unref()
        return
      }
      held.shift()
    }
  }
  const hold = (bytes: Buffer) => {
    held.push(bytes)
    heldBytes += bytes.length
    retry ??= setTimeout(flush, RETRY_MS).unref()
  }
  // At exit, one more non-blocking attempt; whatever the pipe does not take then is lost, never waited for.
  process.once('exit', flush)
  return {
    get dropped() {
      return dropped
    },
    write(text) {
      const bytes = Buffer.from(text)
      if (write === undefined) return drop(1, 'the reader of standard output is gone')
      if (held.length > 0) {
        if (heldBytes + bytes.length > maxHeld) return drop(1, 'the reader of standard output is not keeping up')
        return hold(bytes)
      }
      const n = tryWrite(bytes)
      if (n < 0) return drop(1, 'the reader of standard output is gone')
      if (n < bytes.length) hold(bytes.subarray(n))
    },
  }
}

/** A regular file, a terminal, /dev/null: written at once, as Node would; failures count as drops. */
function directSink(fd: number, onFirstDrop: (reason: string) => void): LogSink {
  let dropped = 0
  return {
    get dropped() {
      return dropped
    },
    write(text) {
      try {
        writeSync(fd, text)
      } catch (err) {
        if (dropped === 0) onFirstDrop(`standard output failed: ${(err as NodeJS.ErrnoException).code ?? String(err)}`)
        dropped++
      }
    },
  }
}

/** One line on standard error if it can be written now without waiting; otherwise nothing. */
function tellStderr(text: string): void {
  try {
    const stat = fstatSync(2)
    if (stat.isSocket()) return void socketSend(2)?.(Buffer.from(text))
    if (!stat.isFIFO()) return void writeSync(2, text)
    const fd = openSync('/proc/self/fd/2', constants.O_WRONLY | constants.O_NONBLOCK)
    try {
      writeSync(fd, text)
    } finally {
      closeQuietly(fd)
    }
  } catch {
    // Standard error is gone or full too: the counter on /metrics still says it.
  }
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd)
  } catch {
    // Already closed.
  }
}
