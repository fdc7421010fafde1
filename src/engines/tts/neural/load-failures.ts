import { mkdir, readdir, readFile, rename, stat, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'

/** Where a models folder keeps them. */
export const loadFailuresFile = (modelsDir: string, cacheDir: string) => join(modelsDir, cacheDir, 'load-failures.json')

interface Failure { readonly stamp: string; readonly reason: string }

/**
 * Packages the runtime refused to load, each with the identity of its files when it did (`filesStamp`) and the
 * runtime's reason. Kept in a file so a restart does not load a refused package again; an entry counts only
 * while the files are unchanged, so replacing or fixing them clears it.
 */
export class LoadFailures {
  readonly #file: string
  #entries: Record<string, Failure> | undefined
  /** Writes one at a time (they share a temporary name), each with every entry recorded before it. */
  #writing: Promise<void> = Promise.resolve()
  #loading: Promise<void> | undefined

  /** `file` empty: kept in memory only. */
  constructor(file: string) {
    this.#file = file
  }

  /** The reason the package with these files was refused, if it was. */
  get(id: string, stamp: string | undefined): string | undefined {
    const entry = this.#entries?.[id]
    return entry && entry.stamp === stamp ? entry.reason : undefined
  }

  /** Reads the file once (a missing or unreadable file: nothing refused yet). */
  load(): Promise<void> {
    this.#loading ??= this.#read()
    return this.#loading
  }

  async #read(): Promise<void> {
    if (!this.#file) {
      this.#entries = {}
      return
    }
    try {
      this.#entries = JSON.parse(await readFile(this.#file, 'utf8')) as Record<string, Failure>
    } catch {
      this.#entries = {}
    }
  }

  async record(id: string, stamp: string, reason: string): Promise<void> {
    await this.load()
    this.#entries = { ...this.#entries, [id]: { stamp, reason } }
    if (!this.#file) return
    const file = this.#file
    const write = this.#writing.catch(() => {}).then(async () => {
      await mkdir(dirname(file), { recursive: true })
      const temp = `${file}.${process.pid}.tmp`
      await writeFile(temp, JSON.stringify(this.#entries))
      await rename(temp, file)
    })
    this.#writing = write
    await write
  }
}

/** A folder's entries and their sizes and times, or a file's: what changes when a package is replaced or edited. */
export async function filesStamp(path: string): Promise<string> {
  const info = await stat(path)
  if (!info.isDirectory()) return `${info.ino}:${info.size}:${info.mtimeMs}`
  const entries = await readdir(path, { withFileTypes: true })
  const parts = await Promise.all(entries.filter((e) => e.isFile()).map(async (e) => {
    const file = await stat(join(path, e.name))
    return `${e.name}:${file.ino}:${file.size}:${file.mtimeMs}`
  }))
  return `${info.ino}|${parts.sort().join('|')}`
}

