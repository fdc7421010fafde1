import { readFileSync } from 'node:fs'
import { NO_PRONUNCIATIONS, parsePronunciations, type Pronunciations } from '../../text/index.js'

/**
 * The `pronunciations` setting's file, read once at start; a missing or malformed file stops the server with
 * what to fix rather than speaking without the operator's words.
 */
export function loadPronunciations(file: string): Pronunciations {
  if (file === '') return NO_PRONUNCIATIONS
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message
    throw new Error(`pronunciations file ${file} (setting pronunciations, PARLA_PRONUNCIATIONS) cannot be read: ${reason}`, { cause: err })
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (err) {
    throw new Error(`pronunciations file ${file} is not valid JSON: ${(err as Error).message}`, { cause: err })
  }
  return parsePronunciations(json, file)
}
