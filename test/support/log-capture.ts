import { createLogger, type Logger } from '../../src/logger.js'

export interface LogLine {
  readonly level: number
  readonly msg: string
  readonly reqId?: string
  readonly [key: string]: unknown
}

/** A real pino logger whose JSON lines are kept for assertions (level 50 = error). */
export function captureLogs(level = 'info'): { logger: Logger; lines: LogLine[]; errors(): LogLine[] } {
  const lines: LogLine[] = []
  const logger = createLogger(level, { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) })
  return { logger, lines, errors: () => lines.filter((l) => l.level >= 50) }
}
