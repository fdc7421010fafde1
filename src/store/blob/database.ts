import { sql } from 'kysely'
import type { Db } from '../db/database.js'
import { assertBlobKey, type BlobStore } from './types.js'

/** `_` is a key character and a LIKE wildcard; `\` escapes it (and `%`) so a prefix matches literally. */
const prefixPattern = (prefix: string) => `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`

/**
 * Blobs as rows of `shared_blobs` in the main database, so every node on one PostgreSQL reads what any node
 * wrote, with no shared filesystem to run. A streamed body is gathered first and written with one upsert,
 * which is atomic: readers see the old value or the whole new one, and a source that fails or is aborted
 * half-way writes nothing. Bodies are voice samples and covers (at most `maxUploadBytes` each), so holding
 * one in memory while it is written is bounded.
 */
export function createDatabaseBlobStore(db: Db): BlobStore {
  return {
    id: 'database',
    async put(key, body, options) {
      assertBlobKey(key)
      let bytes: Buffer
      if (body instanceof Uint8Array) bytes = Buffer.from(body)
      else {
        const parts: Uint8Array[] = []
        for await (const chunk of body) {
          options?.signal?.throwIfAborted()
          parts.push(chunk)
        }
        bytes = Buffer.concat(parts)
      }
      options?.signal?.throwIfAborted()
      const row = { key, body: bytes, size: bytes.length, updated_at: new Date().toISOString() }
      await db
        .insertInto('shared_blobs')
        .values(row)
        .onConflict((oc) => oc.column('key').doUpdateSet({ body: bytes, size: row.size, updated_at: row.updated_at }))
        .execute()
    },
    async get(key) {
      assertBlobKey(key)
      const row = await db.selectFrom('shared_blobs').select('body').where('key', '=', key).executeTakeFirst()
      return row ? new Uint8Array(row.body) : null
    },
    async delete(key) {
      assertBlobKey(key)
      await db.deleteFrom('shared_blobs').where('key', '=', key).execute()
    },
    async list(prefix, options) {
      let q = db.selectFrom('shared_blobs').select('key').where(sql<boolean>`key like ${prefixPattern(prefix)} escape '\\'`)
      if (options?.writtenBefore !== undefined) q = q.where('updated_at', '<', new Date(options.writtenBefore).toISOString())
      const rows = await q.execute()
      return rows.map((r) => r.key)
    },
  }
}
