import { mkdir, readdir, readFile, rename, stat, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'

/** Where a models folder keeps them. */
export const loadChecksFile = (modelsDir: string, cacheDir: string) => join(modelsDir, cacheDir, 'load-checks.json')

/** What loading a package in the runtime gave: it loaded, or the runtime's reason for refusing it. */
export type LoadVerdict = { readonly ok: true } | { readonly ok: false; readonly reason: string }

type Entry = LoadVerdict & { readonly stamp: string }

/**
 * What the runtime said when each package was loaded (model-checks.ts), with the identity of its files then
 * (`filesStamp`). Kept in a file so neither a restart nor `parla models list` loads an unchanged package
 * again; an entry counts only while the files are unchanged, so replacing or fixing them clears it.
 */
export class LoadChecks {
  readonly #file: string
  #entries: Record<string, Entry> = {}
  /** Writes one at a time (they share a temporary name), each with every entry recorded before it. */
  #writing: Promise<void> = Promise.resolve()

  /** `file` empty: kept in memory only. */
  constructor(file: string) {
    this.#file = file
  }

  /** The verdict on the package with these files, if it was loaded. */
  get(id: string, stamp: string | undefined): LoadVerdict | undefined {
    const entry = this.#entries[id]
    if (!entry || entry.stamp !== stamp) return undefined
    return entry.ok ? { ok: true } : { ok: false, reason: entry.reason }
  }

  /** Reads the file again (another process, `parla models add`, may have written it); missing or unreadable: nothing known. */
  async load(): Promise<void> {
    if (!this.#file) return
    try {
      const read = JSON.parse(await readFile(this.#file, 'utf8')) as Record<string, Entry>
      this.#entries = { ...this.#entries, ...read }
    } catch {
      // Nothing checked yet, or a file from an older Parla: the packages are checked again.
    }
  }

  async record(id: string, stamp: string, verdict: LoadVerdict): Promise<void> {
    this.#entries = { ...this.#entries, [id]: { ...verdict, stamp } }
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
