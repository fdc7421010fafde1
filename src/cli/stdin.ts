import { CliError, EXIT } from './exit.js'

/** All of stdin as text; refuses a terminal, where it would wait for input nobody knows to type. */
export async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) throw new CliError(EXIT.usage, "no text: give it as an argument, or pipe it in with '-'")
  const parts: Buffer[] = []
  for await (const chunk of process.stdin) parts.push(chunk as Buffer)
  return Buffer.concat(parts).toString('utf8')
}
