import { tmpdir } from 'node:os'
import { afterAll, describe, expect, it } from 'vitest'
import { freshPostgres } from '../../../test/support/postgres/fresh.js'
import { createPostgresChangeFeed, type ChangeFeed } from './changes.js'
import { dialectFor, openDatabase, type Db } from './database.js'
import { createKeyRepository } from './repositories/keys.js'

describe('PostgreSQL change feed: caches on every node', () => {
  const open: { close(): Promise<unknown> }[] = []
  afterAll(async () => {
    for (const o of open.reverse()) await o.close()
  })

  it('a key revoked on one node stops authenticating on another at once, not after the cache expires', async () => {
    const database = await freshPostgres()
    open.push({ close: () => database.drop() })
    const node = async (): Promise<{ db: Db; changes: ChangeFeed }> => {
      const db = await openDatabase(dialectFor(database.url, tmpdir()))
      const changes = await createPostgresChangeFeed(database.url, (err) => {
        throw err
      })
      open.push({ close: () => db.destroy() }, changes)
      return { db, changes }
    }
    const a = await node()
    const b = await node()
    const keysA = createKeyRepository(a.db, a.changes)
    const keysB = createKeyRepository(b.db, b.changes)
    const { key, info } = await keysA.create('shared')
    expect(await keysB.authenticate(key)).toMatchObject({ keyId: info.id }) // now cached on B
    const heard = new Promise<string>((resolve) => b.changes.subscribe('key', resolve))
    expect(await keysA.revoke(info.id)).toBe(true)
    expect(await heard).toBe(info.id)
    expect(await keysB.authenticate(key)).toBeNull()
  })
})
