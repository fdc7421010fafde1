import { stat } from 'node:fs/promises'
import { join } from 'node:path'
import { SpeechError } from '../errors.js'
import { CATALOG } from './catalog-data.js'
import type { CatalogEntry } from './catalog-types.js'

export type { CatalogEntry, CatalogFile } from './catalog-types.js'
export { CATALOG } from './catalog-data.js'

/** The entry `pull` resolves a name to: its published name or one of its aliases, case as published or not. */
export function findCatalogEntry(name: string, catalog: readonly CatalogEntry[] = CATALOG): CatalogEntry {
  const wanted = name.toLowerCase()
  const found = catalog.find((e) => e.name.toLowerCase() === wanted || e.aliases?.some((a) => a.toLowerCase() === wanted))
  if (found) return found
  const near = catalog.filter((e) => e.name.toLowerCase().includes(wanted.split(/[-_.]/)[0] ?? wanted)).slice(0, 5).map((e) => e.name)
  throw new SpeechError('not_found', `${name} is not in the model catalog${near.length ? ` (did you mean ${near.join(', ')}?)` : ''}; 'parla models catalog' lists the names, and 'parla models pull URL' takes any URL`)
}

export interface CatalogFilter {
  readonly kind?: 'tts' | 'asr' | 'vad'
  /** A language code (`de`, `en-gb`): entries speaking it, and many-language models. */
  readonly language?: string
}

export function filterCatalog(filter: CatalogFilter, catalog: readonly CatalogEntry[] = CATALOG): CatalogEntry[] {
  const language = filter.language?.toLowerCase().replace('_', '-')
  return catalog.filter((e) => (!filter.kind || e.kind === filter.kind) &&
    (!language || e.languages.some((l) => l === 'mul' || l === language || l.startsWith(`${language}-`) || language.startsWith(`${l}-`))))
}

/** The download size when the publisher gives every file's size; otherwise undefined. */
export function catalogSize(entry: CatalogEntry): number | undefined {
  const files = [...entry.files, ...(entry.extras ?? [])]
  return files.every((f) => f.size !== undefined) ? files.reduce((sum, f) => sum + f.size!, 0) : undefined
}

/**
 * A publisher's URL moved onto `mirror` (`modelsMirror`), keeping its path: `https://huggingface.co/rhasspy/…`
 * becomes `<mirror>/rhasspy/…`, so a mirror holds the files under the same paths as their publishers.
 */
export function mirrored(url: string, mirror: string): string {
  if (!mirror) return url
  const { pathname, search } = new URL(url)
  return `${mirror.replace(/\/+$/, '')}${pathname}${search}`
}

/** Whether the entry's package is in `modelsDir` (installed under its published name). */
export const isInstalled = (entry: CatalogEntry, modelsDir: string): Promise<boolean> =>
  stat(join(modelsDir, entry.name)).then(() => true, () => false)
