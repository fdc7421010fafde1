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

/** How a process ended, from `NeuralHost.exitReason`: `(SIGKILL)`, `(exit code 255): <its last line>`. */
export const exitCause = (exitReason: string | undefined) => (exitReason ?? '(unknown)').replace(/^the neural runtime process ended /, '')

/** The answer to a call whose runtime process ended under it: 503, why, and that it may be tried again. */
export const diedError = (what: string, exitReason: string | undefined) => new SpeechError('unavailable',
  `[neural] the runtime process serving ${what} ended under this request ${exitCause(exitReason)}; it was replaced, try again`, { retryAfterSec: 1 })

/** The reason kept for a package that ended `DEATHS_BEFORE_BROKEN` processes. */
export const diedTooOften = (exitReason: string | undefined) =>
  `${DEATHS_BEFORE_BROKEN} runtime processes ended while using it, the last ${exitCause(exitReason)}`
