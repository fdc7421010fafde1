import type fc from 'fast-check'
import type { TestServer } from '../helpers/app.js'

/** One fuzzed aspect of a surface. Surface modules export a list of these; `run.ts` runs them all. */
export interface FuzzProperty {
  readonly name: string
  /** Cases per `npm test` run (the suite keeps a few hundred in all). */
  readonly runs: number
  /** The property uses real sockets (raw HTTP, WebSocket): the server must be listening. */
  readonly listen?: boolean
  readonly property: (s: TestServer) => fc.IAsyncPropertyWithHooks<never>
  /** Once the cases ran: the surface's own normal-service and leftover checks, and closing what it opened. */
  readonly after?: (s: TestServer) => Promise<void>
}

/** Percent-encodes any string byte by byte (lone surrogates become U+FFFD), unlike encodeURIComponent, which throws. */
export const percentEncode = (s: string) =>
  [...Buffer.from(s, 'utf8')].map((b) => (/[A-Za-z0-9_.~-]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).padStart(2, '0').toUpperCase()}`)).join('')
