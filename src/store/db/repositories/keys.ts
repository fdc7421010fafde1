import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import type { Principal } from '../../../principal.js'
import type { ChangeFeed } from '../changes.js'
import type { Db } from '../database.js'

export interface KeyInfo {
  readonly id: string
  readonly name: string
  readonly accountId: string
  readonly prefix: string
  readonly createdAt: string
  readonly revokedAt: string | null
}

const sha256 = (value: string) => createHash('sha256').update(value).digest()
const newId = (bytes: number) => randomBytes(bytes).toString('hex')

/**
 * API keys look like `parla_<key id>_<secret>`. The id finds the row; the stored sha256 of the whole key
 * is then compared with `timingSafeEqual`, so neither lookup nor comparison leaks the secret through timing.
 * The key itself is never stored.
 */
export function createKeyRepository(db: Db, changes?: ChangeFeed) {
  // Authenticated keys for a few seconds, so a hot endpoint does not hit the database per request. A revocation
  // is announced on the change feed, which drops the entry on every node at once; CACHE_MS bounds the rest.
  const CACHE_MS = 5_000
  const cache = new Map<string, { hash: Buffer; principal: Principal; until: number }>()
  changes?.subscribe('key', (id) => cache.delete(id))

  async function createAccount(nickname: string, id = newId(16)): Promise<string> {
    await db.insertInto('accounts').values({ id, nickname, created_at: new Date().toISOString() }).execute()
    return id
  }

  return {
    createAccount,

    async ensureAccount(id: string, nickname: string): Promise<void> {
      await db
        .insertInto('accounts')
        .values({ id, nickname, created_at: new Date().toISOString() })
        .onConflict((oc) => oc.column('id').doNothing())
        .execute()
    },

    /** Creates a key (and a new account named after it unless `accountId` is given); returns the key once. */
    async create(name: string, accountId?: string): Promise<{ key: string; info: KeyInfo }> {
      if (accountId) {
        const exists = await db.selectFrom('accounts').select('id').where('id', '=', accountId).executeTakeFirst()
        if (!exists) throw new Error(`no account with id ${accountId}`)
      }
      const account = accountId ?? (await createAccount(name))
      const id = newId(8)
      const key = `parla_${id}_${randomBytes(32).toString('base64url')}`
      const info: KeyInfo = { id, name, accountId: account, prefix: key.slice(0, 22), createdAt: new Date().toISOString(), revokedAt: null }
      await db
        .insertInto('api_keys')
        .values({ id, account_id: account, name, key_hash: sha256(key).toString('hex'), prefix: info.prefix, created_at: info.createdAt, revoked_at: null })
        .execute()
      return { key, info }
    },

    async list(): Promise<KeyInfo[]> {
      const rows = await db.selectFrom('api_keys').selectAll().orderBy('created_at').execute()
      return rows.map((r) => ({ id: r.id, name: r.name, accountId: r.account_id, prefix: r.prefix, createdAt: r.created_at, revokedAt: r.revoked_at }))
    },

    /** Returns false when no active key has that id. */
    async revoke(id: string): Promise<boolean> {
      const result = await db
        .updateTable('api_keys')
        .set({ revoked_at: new Date().toISOString() })
        .where('id', '=', id)
        .where('revoked_at', 'is', null)
        .executeTakeFirst()
      cache.delete(id)
      await changes?.publish('key', id)
      return Number(result.numUpdatedRows) > 0
    },

    async countActive(): Promise<number> {
      const row = await db.selectFrom('api_keys').select((eb) => eb.fn.countAll<number>().as('n')).where('revoked_at', 'is', null).executeTakeFirstOrThrow()
      return Number(row.n)
    },

    async authenticate(key: string): Promise<Principal | null> {
      const match = /^parla_([0-9a-f]{16})_[A-Za-z0-9_-]{43}$/.exec(key)
      if (!match) return null
      const id = match[1]!
      const presented = sha256(key)
      const now = Date.now()
      let entry = cache.get(id)
      if (!entry || entry.until < now) {
        const row = await db.selectFrom('api_keys').select(['key_hash', 'account_id']).where('id', '=', id).where('revoked_at', 'is', null).executeTakeFirst()
        if (!row) {
          cache.delete(id)
          return null
        }
        entry = { hash: Buffer.from(row.key_hash, 'hex'), principal: { accountId: row.account_id, keyId: id }, until: now + CACHE_MS }
        cache.set(id, entry)
      }
      return timingSafeEqual(entry.hash, presented) ? entry.principal : null
    },
  }
}

export type KeyRepository = ReturnType<typeof createKeyRepository>
