import { join, resolve } from 'node:path'
import type { Config } from './config/schema.js'
import { dialectFor, openDatabase, type Db } from './store/db/database.js'
import { createKeyRepository, type KeyRepository } from './store/db/repositories/keys.js'
import { createFsBlobStore } from './store/blob/fs.js'
import { createMemoryBlobStore } from './store/blob/memory.js'
import type { BlobStore } from './store/blob/types.js'

/** Everything the routes use, wired once from the config. Tests build it with in-memory stores. */
export interface Deps {
  readonly config: Config
  readonly db: Db
  readonly blobs: BlobStore
  readonly keys: KeyRepository
  close(): Promise<void>
}

export interface DepsOverrides {
  /** Use an in-memory SQLite database and blob store (tests). */
  readonly inMemory?: boolean
}

export async function createDeps(config: Config, overrides: DepsOverrides = {}): Promise<Deps> {
  const dataDir = resolve(config.dataDir)
  const db = await openDatabase(dialectFor(overrides.inMemory ? 'sqlite::memory:' : config.databaseUrl, dataDir))
  const blobs = overrides.inMemory ? createMemoryBlobStore() : await createFsBlobStore(join(dataDir, 'blobs'))
  const keys = createKeyRepository(db)
  return {
    config,
    db,
    blobs,
    keys,
    async close() {
      await blobs.close?.()
      await db.destroy()
    },
  }
}
