import { readdir } from 'node:fs/promises'
import { detectPackage, CACHE_DIR } from './detect.js'
import type { ModelPackage } from './types.js'

export interface Discovery {
  readonly packages: readonly ModelPackage[]
  /** Entries that look like models but could not be read, with why (shown by `parla models list`). */
  readonly problems: readonly { readonly id: string; readonly message: string }[]
}

/** Every model package in `modelsDir` (a missing folder has none). One broken package never hides the others. */
export async function discoverModels(modelsDir: string): Promise<Discovery> {
  const names = await readdir(modelsDir).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return [] as string[]
    throw err
  })
  const packages: ModelPackage[] = []
  const problems: { id: string; message: string }[] = []
  for (const name of names.sort()) {
    if (name === CACHE_DIR || name.startsWith('.')) continue
    try {
      const found = await detectPackage(modelsDir, name)
      if (found) packages.push(found)
    } catch (err) {
      problems.push({ id: name, message: err instanceof Error ? err.message : String(err) })
    }
  }
  return { packages, problems }
}
