import { pino, type DestinationStream, type Logger as PinoLogger } from 'pino'
import { openLogSink, type LogSink } from './log-sink.js'

/**
 * The one logger: created in `createDeps` from `logLevel`, handed to Fastify (so request logs carry their
 * request id), to the engines and to training. Nothing in `src/` writes to the console behind its back.
 */
export type Logger = PinoLogger

let stdout: LogSink | undefined

/**
 * Standard output as the log (and `parla serve`'s first-start message) writes it: never blocking on a slow
 * reader, never ending the process when the reader is gone (see `log-sink.ts`). One per process.
 */
export function stdoutSink(): LogSink {
  return (stdout ??= openLogSink(1))
}

/** Log lines standard output dropped so far (`parla_log_lines_dropped_total`). */
export function droppedLogLines(): number {
  return stdout?.dropped ?? 0
}

/** A pino logger at `level`, writing JSON lines to stdout (`stdoutSink`) or to `destination` (tests capture it). */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino({ level }, destination ?? stdoutSink())
}

/**
 * Node's own warnings (e.g. MaxListenersExceededWarning) go into `logger` at level warn instead of Node's
 * default printer, which writes them to standard error with a blocking write: a stuck reader of standard
 * error would stall the main thread.
 */
export function logProcessWarnings(logger: Logger): void {
  process.removeAllListeners('warning')
  process.on('warning', (warning) => {
    logger.warn({ warning: { name: warning.name, message: warning.message, code: (warning as NodeJS.ErrnoException).code } }, `[node] ${warning.name}: ${warning.message}`)
  })
}

/** Logs nothing (unit tests, benchmarks). */
export const silentLogger: Logger = pino({ level: 'silent' })
