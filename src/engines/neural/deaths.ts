import { SpeechError } from '../../errors.js'

/** Serving processes a package may end (with the same files) before it is marked broken. */
export const DEATHS_BEFORE_BROKEN = 2

/**
 * Runtime processes that ended while serving each package. Its check loaded it, so one death may be the
 * machine's (memory) rather than the files'; a second with the same files is theirs.
 */
export class PackageDeaths {
  readonly #counts = new Map<string, number>()

  /** Counts one death; true when the package with these files has now ended `DEATHS_BEFORE_BROKEN` processes. */
  died(id: string, stamp: string): boolean {
    const key = `${id}\n${stamp}`
    const count = (this.#counts.get(key) ?? 0) + 1
    this.#counts.set(key, count)
    return count >= DEATHS_BEFORE_BROKEN
  }
}

/** The answer to a call whose runtime process ended under it: 503, why, and that it may be tried again. */
export const diedError = (what: string, reason: string) => new SpeechError('unavailable',
  `[neural] the runtime process serving ${what} ended under this request (${reason}); it was replaced, try again`, { retryAfterSec: 1 })
