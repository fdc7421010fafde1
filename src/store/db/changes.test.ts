import { tmpdir } from 'node:os'
import { afterAll, describe, expect, it } from 'vitest'
import { freshPostgres } from '../../../test/support/postgres/fresh.js'
import { createPostgresChangeFeed, type ChangeFeed } from './changes.js'
import { dialectFor, openDatabase, type Db } from './database.js'
import { createKeyRepository } from './repositories/keys.js'
import { createModelRepository } from './repositories/models.js'
import { createQuotaRepository } from './repositories/quota.js'

describe('PostgreSQL change feed: caches on every node', () => {
  const open: { close(): Promise<unknown> }[] = []
  afterAll(async () => {
    for (const o of open.reverse()) await o.close()
  })

  const twoNodes = async () => {
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
    return [await node(), await node()] as const
  }

  it('a model row another node changed is read fresh at once, though rows are cached per node', async () => {
    const [a, b] = await twoNodes()
    const modelsA = createModelRepository(a.db, a.changes)
    const modelsB = createModelRepository(b.db, b.changes)
    await createKeyRepository(a.db).ensureAccount('acc', 'someone')
    const now = new Date().toISOString()
    const notices: string[] = []
    let notified = () => {}
    b.changes.subscribe('model', (id) => (notices.push(id), notified()))
    const nextNotice = () => new Promise<void>((resolve) => (notified = resolve))
    const inserted = nextNotice()
    await modelsA.insert({
      id: 'm1', accountId: 'acc', authorNickname: '', type: 'tts', title: 'Mine', description: '', coverKey: '', trainMode: 'fast',
      state: 'training', stateReason: '', visibility: 'public', tags: [], languages: [], titleLanguage: 'en', samples: [],
      quality: { created_at: now, updated_at: now, audios: [] }, profile: null, builtinVoice: null, defaultText: '',
      enhanceAudioQuality: false, likeCount: 0, markCount: 0, sharedCount: 0, taskCount: 0, score: 0, createdAt: now, updatedAt: now,
    }, [])
    await inserted // the insert's own notice reached B before B reads
    expect(await modelsB.findById('m1')).toMatchObject({ state: 'training' }) // cached on B now
    await a.db.updateTable('models').set({ title: 'changed behind the cache' }).where('id', '=', 'm1').execute()
    expect(await modelsB.findById('m1')).toMatchObject({ title: 'Mine' }) // proof that B answers from its cache
    const heard = nextNotice()
    expect(await modelsA.setState('m1', { state: 'trained' }, now, ['training'])).toBe(true)
    await heard
    expect(notices).toEqual(['m1', 'm1'])
    expect(await modelsB.findById('m1')).toMatchObject({ state: 'trained', title: 'changed behind the cache' })
  })

  it('limits set on one node apply on another at once, though each node caches them', async () => {
    const [a, b] = await twoNodes()
    const quotaA = createQuotaRepository(a.db, a.changes)
    const quotaB = createQuotaRepository(b.db, b.changes)
    expect(await quotaB.limits('acc')).toBeUndefined() // no row: cached as such on B
    await a.db.insertInto('account_limits').values({
      account_id: 'acc', max_concurrent: 7, requests_per_minute: null, characters_per_month: null, audio_seconds_per_month: null, updated_at: '',
    }).execute()
    expect(await quotaB.limits('acc')).toBeUndefined() // proof that B answers from its cache
    const heard = new Promise<string>((resolve) => b.changes.subscribe('limits', resolve))
    await quotaA.setLimits('acc', { requests_per_minute: 60 })
    expect(await heard).toBe('acc')
    expect(await quotaB.limits('acc')).toMatchObject({ max_concurrent: 7, requests_per_minute: 60 })
  })

  it('a key revoked on one node stops authenticating on another at once, not after the cache expires', async () => {
    const [a, b] = await twoNodes()
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
