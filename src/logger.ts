import { pino, type DestinationStream, type Logger as PinoLogger } from 'pino'

/**
 * The one logger: created in `createDeps` from `logLevel`, handed to Fastify (so request logs carry their
 * request id), to the engines and to training. Nothing in `src/` writes to the console behind its back.
 */
export type Logger = PinoLogger

/** A pino logger at `level`, writing JSON lines to stdout or to `destination` (tests capture it). */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  return destination ? pino({ level }, destination) : pino({ level })
}

/** Logs nothing (unit tests, benchmarks). */
export const silentLogger: Logger = pino({ level: 'silent' })
