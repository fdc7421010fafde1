import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll } from 'vitest'
import { runBlobStoreConformance } from '../../../test/support/conformance/blob-store.js'
import { freshPostgres } from '../../../test/support/postgres/fresh.js'
import { dialectFor, openDatabase } from '../db/database.js'
import { createDatabaseBlobStore } from './database.js'
import { createFsBlobStore } from './fs.js'
import { createMemoryBlobStore } from './memory.js'
import type { BlobStore } from './types.js'

const cleanups: (() => Promise<unknown>)[] = []
afterAll(() => Promise.all(cleanups.map((c) => c())))

runBlobStoreConformance({
  name: 'fs',
  create: async () => {
    const dir = await mkdtemp(join(tmpdir(), 'parla-blobs-'))
    cleanups.push(() => rm(dir, { recursive: true, force: true }))
    return createFsBlobStore(dir)
  },
})
runBlobStoreConformance({ name: 'memory', create: async () => createMemoryBlobStore() })

/** The database store closes the database it opened when the suite closes the store. */
async function databaseStore(url: string): Promise<BlobStore> {
  const db = await openDatabase(dialectFor(url, tmpdir()))
  return { ...createDatabaseBlobStore(db), close: () => db.destroy() }
}
runBlobStoreConformance({ name: 'database (SQLite)', create: () => databaseStore('sqlite::memory:') })
runBlobStoreConformance({
  name: 'database (PostgreSQL)',
  create: async () => {
    const database = await freshPostgres()
    cleanups.push(() => database.drop())
    return databaseStore(database.url)
  },
})
