import { writeFile, mkdir } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import type { KeyRepository } from '../store/db/repositories/keys.js'

/**
 * On a server with no active key, creates one so a new user can call the API at once: printed once and
 * written to `<dataDir>/api-key` with mode 0600. Returns the key, or null when keys already exist.
 */
export async function ensureFirstKey(keys: KeyRepository, dataDir: string): Promise<string | null> {
  if ((await keys.countActive()) > 0) return null
  const { key } = await keys.create('default')
  const dir = resolve(dataDir)
  await mkdir(dir, { recursive: true })
  await writeFile(join(dir, 'api-key'), `${key}\n`, { mode: 0o600 })
  return key
}
