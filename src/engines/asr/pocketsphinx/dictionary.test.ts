import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { lmDictionary, lmVocabulary } from './dictionary.js'
import { MODEL_DIR } from './settings.js'

const FULL_DICT = `${MODEL_DIR}/cmudict-en-us.dict`

/** Dictionary lines as [entry, base word] pairs: `read(2) R EH D` → ['read(2)', 'read']. */
function entries(text: string): [string, string][] {
  return text.split('\n').filter((line) => line.trim() !== '').map((line) => {
    const entry = line.split(/\s/)[0]!
    return [entry, entry.replace(/\(\d+\)$/, '')]
  })
}

let cacheDir: string
let vocabulary: Set<string>
let fullEntries: [string, string][]
let path: string
let keptEntries: [string, string][]

beforeAll(() => {
  // A fresh cache directory, so the first call really builds the file.
  cacheDir = mkdtempSync(join(tmpdir(), 'parla-dict-test-'))
  vocabulary = lmVocabulary(`${MODEL_DIR}/en-us.lm.bin`)
  fullEntries = entries(readFileSync(FULL_DICT, 'utf8'))
  path = lmDictionary(MODEL_DIR, cacheDir)
  keptEntries = entries(readFileSync(path, 'utf8'))
})

afterAll(() => {
  rmSync(cacheDir, { recursive: true, force: true })
})

describe('lmDictionary', () => {
  it('reads the LM vocabulary', () => {
    expect(vocabulary.size).toBe(72_547)
    expect(vocabulary.has('hello')).toBe(true)
  })

  it('writes a filtered file into the cache directory', () => {
    expect(path.startsWith(cacheDir)).toBe(true)
    expect(path).not.toBe(FULL_DICT)
    expect(statSync(path).isFile()).toBe(true)
  })

  it('keeps only LM words, with their pronunciation variants', () => {
    expect(keptEntries.filter(([, word]) => !vocabulary.has(word))).toEqual([])
    const kept = new Set(keptEntries.map(([entry]) => entry))
    for (const entry of ['hello', 'read', 'read(2)']) expect(kept.has(entry)).toBe(true)
    // Every entry of the full dictionary whose word the LM has is still there.
    const expected = fullEntries.filter(([, word]) => vocabulary.has(word)).map(([entry]) => entry)
    expect(keptEntries.map(([entry]) => entry)).toEqual(expected)
  })

  it('drops dictionary words the LM does not have', () => {
    const dropped = fullEntries.filter(([, word]) => !vocabulary.has(word))
    expect(dropped.length).toBeGreaterThan(50_000)
    const kept = new Set(keptEntries.map(([entry]) => entry))
    expect(dropped.filter(([entry]) => kept.has(entry))).toEqual([])
    // One concrete case, checked against both files rather than assumed.
    expect(fullEntries.some(([entry]) => entry === 'abattoir')).toBe(true)
    expect(vocabulary.has('abattoir')).toBe(false)
    expect(kept.has('abattoir')).toBe(false)
  })

  it('is well below the full dictionary in size', () => {
    expect(fullEntries.length).toBe(134_723)
    expect(keptEntries.length).toBeLessThan(fullEntries.length * 0.65)
  })

  it('returns the cached file on the next call without rebuilding it', () => {
    const before = statSync(path)
    expect(lmDictionary(MODEL_DIR, cacheDir)).toBe(path)
    const after = statSync(path)
    expect(after.mtimeMs).toBe(before.mtimeMs)
    expect(after.ino).toBe(before.ino)
  })

  it('falls back to the full dictionary, with a warning, when the cache cannot be written', () => {
    const blocker = join(cacheDir, 'not-a-directory')
    writeFileSync(blocker, '')
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {})
    try {
      expect(lmDictionary(MODEL_DIR, join(blocker, 'cache'))).toBe(FULL_DICT)
      expect(warn).toHaveBeenCalledOnce()
    } finally {
      warn.mockRestore()
    }
  })
})
