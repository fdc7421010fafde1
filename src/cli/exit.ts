/** Exit codes of the API commands (listed in `parla --help`). */
export const EXIT = {
  ok: 0,
  /** The server failed, or training ended in `failed`. */
  failed: 1,
  /** Wrong use: bad flags or arguments, or the API rejected the input (400, 413, 415, 422). */
  usage: 2,
  /** The key was refused (401) or may not do this (403). */
  auth: 3,
  /** No such voice or file (404). */
  notFound: 4,
  /** The server could not be reached. */
  unreachable: 5,
} as const

export const EXIT_HELP = `
Exit codes: 0 done; 1 the server failed or training failed; 2 wrong usage or input the API rejected;
3 API key refused or not allowed; 4 not found; 5 server unreachable.`

/** An expected failure of a CLI command: printed as one line, exits with its code. */
export class CliError extends Error {
  readonly exitCode: number
  constructor(exitCode: number, message: string) {
    super(message)
    this.exitCode = exitCode
  }
}
