import { join } from 'node:path'
import { isPostgresUrl, type Db } from '../db/database.js'
import { createDatabaseBlobStore } from './database.js'
import { createFsBlobStore } from './fs.js'
import type { BlobStore } from './types.js'

export interface BlobStoreContext {
  readonly db: Db
  readonly dataDir: string
}

/** Blob stores by the `blobStore` setting. */
const BLOB_STORES: Record<'fs' | 'database', (context: BlobStoreContext) => Promise<BlobStore>> = {
  fs: async ({ dataDir }) => createFsBlobStore(join(dataDir, 'blobs')),
  database: async ({ db }) => createDatabaseBlobStore(db),
}

/** `auto`: on PostgreSQL the blobs go where every node sees them; on SQLite (one node) to files. */
export function openBlobStore(
  setting: 'auto' | 'fs' | 'database',
  databaseUrl: string,
  context: BlobStoreContext,
): Promise<BlobStore> {
  const name = setting === 'auto' ? (isPostgresUrl(databaseUrl) ? 'database' : 'fs') : setting
  return BLOB_STORES[name](context)
}
