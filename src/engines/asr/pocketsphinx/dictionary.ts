import { createHash } from 'node:crypto'
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { threadId } from 'node:worker_threads'
import { loadPocketsphinx } from './ffi.js'
import { MODEL_DIR } from './settings.js'

/**
 * Where filtered dictionaries are kept between runs: built once per machine and user, not once per start.
 * Per user, because a file another user owns is not trusted (`isOwnFile`).
 */
export const DEFAULT_DICT_CACHE_DIR = join(tmpdir(), `parla-pocketsphinx-${process.getuid?.() ?? 'user'}`)

const DICT_FILE = 'cmudict-en-us.dict'
const LM_FILE = 'en-us.lm.bin'
/** Part of the cache key: bump it when the filter changes, so old files are not reused. */
const FILTER_VERSION = 1
const NGRAM_AUTO = 0

/** The unigrams of an n-gram model file (ARPA or binary), read through sphinxbase. */
export function lmVocabulary(lmPath: string): Set<string> {
  const api = loadPocketsphinx()
  const lmath = api.logmath_init(1.0001, 0, 0)
  if (!lmath) throw new Error('[pocketsphinx] logmath_init failed')
  try {
    // Silent: `loadPocketsphinx` turned the library's process-wide log off.
    const lm = api.ngram_model_read(null, lmPath, NGRAM_AUTO, lmath)
    if (!lm) throw new Error(`[pocketsphinx] cannot read the language model ${lmPath}`)
    try {
      const unigrams = api.peekUint32(api.ngram_model_get_counts(lm), 0)
      const words = new Set<string>()
      for (let wid = 0; wid < unigrams; wid++) words.add(api.ngram_word(lm, wid))
      return words
    } finally {
      api.ngram_model_free(lm)
    }
  } finally {
    api.logmath_free(lmath)
  }
}

/** `read(2)` → `read`. */
function baseWord(entry: string): string {
  return entry.replace(/\(\d+\)$/, '')
}

/**
 * The lines of a CMU-format dictionary whose word is in `vocabulary`, pronunciation variants included, in
 * their original order (a variant must follow its base word).
 */
export function filterDictionary(dictText: string, vocabulary: ReadonlySet<string>): string {
  const kept: string[] = []
  for (const line of dictText.split('\n')) {
    const word = /^\S+/.exec(line)?.[0]
    if (word && vocabulary.has(baseWord(word))) kept.push(line)
  }
  return kept.join('\n') + '\n'
}

/** Changes whenever either model file is replaced (a package upgrade), or the filter itself changes. */
function cacheKey(lmPath: string, dictPath: string): string {
  const hash = createHash('sha256').update(`v${FILTER_VERSION}`)
  for (const path of [lmPath, dictPath]) {
    const st = statSync(path)
    hash.update(`\0${resolve(path)}\0${st.size}\0${st.mtimeMs}`)
  }
  return hash.digest('hex').slice(0, 16)
}

/** A file another local user planted in a shared temp dir is not trusted as a dictionary. */
function isOwnFile(path: string): boolean {
  try {
    const st = statSync(path)
    return st.isFile() && st.size > 0 && (process.getuid === undefined || st.uid === process.getuid())
  } catch {
    return false
  }
}

/** Writes under a private temp name in the same directory, then renames: readers see all of it or nothing. */
function writeAtomically(path: string, text: string): void {
  const temp = `${path}.${process.pid}-${threadId}-${Math.random().toString(36).slice(2)}.tmp`
  try {
    writeFileSync(temp, text, { mode: 0o644 })
    renameSync(temp, path)
  } catch (err) {
    rmSync(temp, { force: true })
    throw err
  }
}

/**
 * The path of `<modelDir>/cmudict-en-us.dict` cut down to the words of `<modelDir>/en-us.lm.bin`. The n-gram
 * search can never output a word the LM lacks, yet every dictionary entry costs the decoder native memory:
 * Debian's dictionary has 134,723 lines, the LM 72,547 unigrams; the cut (79,420 lines) saves 12 MB per
 * decoder (91 → 79 MB). Building reads the 27 MB LM (~55 ms) and filters the 3.3 MB dictionary: ~120 ms in
 * all, once per machine (until the temp dir is cleaned); later calls only stat three files. On any failure
 * this falls back to the full dictionary (correct, only larger) with a process warning.
 */
export function lmDictionary(modelDir = MODEL_DIR, cacheDir = DEFAULT_DICT_CACHE_DIR): string {
  const dictPath = join(modelDir, DICT_FILE)
  try {
    const lmPath = join(modelDir, LM_FILE)
    const cached = join(cacheDir, `cmudict-en-us.lm-${cacheKey(lmPath, dictPath)}.dict`)
    if (isOwnFile(cached)) return cached
    mkdirSync(cacheDir, { recursive: true, mode: 0o700 })
    const filtered = filterDictionary(readFileSync(dictPath, 'utf8'), lmVocabulary(lmPath))
    // No shared word at all means mismatched files (e.g. another spelling convention), not an empty language.
    if (filtered.trim() === '') throw new Error(`no word of ${dictPath} is in ${lmPath}`)
    writeAtomically(cached, filtered)
    return cached
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err)
    process.emitWarning(`[pocketsphinx] using the full dictionary ${dictPath}: cannot build the filtered one ` +
      `(${reason})`, { code: 'PARLA_POCKETSPHINX_DICT' })
    return dictPath
  }
}
