import { mkdir, rename } from 'node:fs/promises'
import { basename, join } from 'node:path'
import { SpeechError } from '../errors.js'
import { isInstalled, mirrored } from './catalog.js'
import type { CatalogEntry, CatalogFile } from './catalog-types.js'
import { CACHE_DIR } from './detect.js'
import type { DownloadOptions } from './download.js'
import { installStaged, workDir } from './store.js'
import type { ModelPackage } from './types.js'
import { ARCHIVE, removeTree, unpackArchive } from './unpack.js'
import { downloadVerified } from './verified-download.js'

export interface CatalogPullOptions {
  /** `modelsMirror`: where the files are fetched from instead of their publishers (same paths). */
  readonly mirror?: string
  /** Called when a file starts downloading, then as its bytes arrive. */
  readonly onFile?: (name: string, url: string) => void
  readonly onProgress?: DownloadOptions['onProgress']
  readonly signal?: AbortSignal
}

const fileName = (file: CatalogFile) => decodeURIComponent(basename(new URL(file.url).pathname))

/**
 * `parla models pull <name>`: downloads every file of a catalog entry into the download cache (a cut download
 * is resumed, within this command and by the next one), verifies each against the publisher's size and
 * checksum, then unpacks and installs the package under its published name. A file that does not verify
 * discards the entry's downloads and installs nothing; `modelsDir` is changed only by the final move.
 */
export async function pullCatalogEntry(modelsDir: string, entry: CatalogEntry, options: CatalogPullOptions = {}): Promise<ModelPackage> {
  if (await isInstalled(entry, modelsDir)) throw new SpeechError('conflict', `${entry.name} is already installed; remove it first with 'parla models rm ${entry.name}'`)
  const downloads = join(modelsDir, CACHE_DIR, 'downloads', entry.name)
  await mkdir(downloads, { recursive: true })
  const files = [...entry.files, ...(entry.extras ?? [])]
  const parts: string[] = []
  for (const file of files) {
    const url = mirrored(file.url, options.mirror ?? '')
    const part = join(downloads, `${fileName(file)}.part`)
    options.onFile?.(fileName(file), url)
    try {
      await downloadVerified(file, url, part, { ...(options.onProgress && { onProgress: options.onProgress }), ...(options.signal && { signal: options.signal }) })
    } catch (err) {
      if (err instanceof SpeechError && err.code === 'bad_request') {
        await removeTree(downloads)
        throw new SpeechError('bad_request', `${err.message}; the download was discarded and nothing was installed (a mirror serving other files, or a publisher that replaced them: pull the URL itself to take it unverified)`)
      }
      throw err
    }
    parts.push(part)
  }
  const work = workDir(modelsDir)
  await mkdir(work, { recursive: true })
  try {
    const pkg = await installFiles(modelsDir, entry, parts, work, options.signal)
    await removeTree(downloads)
    return pkg
  } catch (err) {
    // Files that verified but do not unpack or are not a package Parla reads: fetch them afresh next time.
    if (err instanceof SpeechError && err.code === 'bad_request') await removeTree(downloads)
    throw err
  } finally {
    await removeTree(work)
  }
}

/** Stages the verified downloads in `work` as the package folder, then moves it into `modelsDir`. */
async function installFiles(modelsDir: string, entry: CatalogEntry, parts: readonly string[], work: string, signal?: AbortSignal): Promise<ModelPackage> {
  const [first] = entry.files
  let staged: string
  if (first && ARCHIVE.test(fileName(first))) {
    staged = await unpackArchive(parts[0]!, join(work, 'unpacked'), signal, fileName(first))
    if (basename(staged) !== entry.name) throw new SpeechError('bad_request', `${fileName(first)} does not hold the folder ${entry.name}; nothing was installed`)
  } else {
    staged = join(work, entry.name)
    await mkdir(staged)
    for (const [i, file] of entry.files.entries()) await rename(parts[i]!, join(staged, fileName(file)))
  }
  for (const [i, extra] of (entry.extras ?? []).entries()) await rename(parts[entry.files.length + i]!, join(staged, fileName(extra)))
  return installStaged(modelsDir, staged, entry.name)
}
