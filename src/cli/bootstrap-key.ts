import { mkdir, rename, writeFile } from 'node:fs/promises'
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
  // Written beside and renamed into place, so whoever reads the file (a script waiting for it, `parla` on the
  // same machine) sees the whole key or no file, never an empty one between its creation and its write.
  const temp = join(dir, `.api-key.${process.pid}.tmp`)
  await writeFile(temp, `${key}\n`, { mode: 0o600 })
  await rename(temp, join(dir, 'api-key'))
  return key
}
