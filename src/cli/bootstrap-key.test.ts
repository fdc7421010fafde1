import { watch } from 'node:fs'
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { dialectFor, openDatabase, type Db } from '../store/db/database.js'
import { createKeyRepository } from '../store/db/repositories/keys.js'
import { ensureFirstKey } from './bootstrap-key.js'

/** The first key of a new server, written where `parla` and scripts on the same machine look (real SQLite). */
describe('ensureFirstKey', () => {
  let db: Db
  let dir: string
  beforeEach(async () => {
    db = await openDatabase(dialectFor('sqlite::memory:', tmpdir()))
    dir = await mkdtemp(join(tmpdir(), 'parla-first-key-'))
  })
  afterEach(async () => {
    await db.destroy()
    await rm(dir, { recursive: true, force: true })
  })

  it('creates a key that authenticates and leaves only the finished file, readable by its owner alone', async () => {
    const keys = createKeyRepository(db)
    const key = await ensureFirstKey(keys, join(dir, 'data'))
    expect(key).toMatch(/^parla_/)
    expect(await keys.authenticate(key!)).not.toBeNull()
    expect(await readFile(join(dir, 'data', 'api-key'), 'utf8')).toBe(`${key}\n`)
    // Nothing of the write is left beside it (it is written under another name and renamed into place).
    expect(await readdir(join(dir, 'data'))).toEqual(['api-key'])
    expect((await stat(join(dir, 'data', 'api-key'))).mode & 0o777).toBe(0o600)
  })

  it('never shows a reader an empty or partly written key file: the whole file appears at once', async () => {
    const data = join(dir, 'data')
    await mkdir(data)
    const events: string[] = []
    // Directory events arrive in order: once the marker written afterwards is reported, so is all of the key's.
    const seenMarker = new Promise<void>((resolve) => {
      const watcher = watch(data, (type, name) => {
        events.push(`${type} ${name}`)
        if (name !== 'marker') return
        watcher.close()
        resolve()
      })
    })
    await ensureFirstKey(createKeyRepository(db), data)
    await writeFile(join(data, 'marker'), '')
    await seenMarker
    expect(events).toContain('rename api-key')
    expect(events).not.toContain('change api-key')
  })

  it('does nothing on a server that already has a key', async () => {
    const keys = createKeyRepository(db)
    await keys.create('mine')
    expect(await ensureFirstKey(keys, join(dir, 'data'))).toBeNull()
    expect(await readdir(dir)).toEqual([])
  })
})
