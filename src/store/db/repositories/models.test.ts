import { tmpdir } from 'node:os'
import { afterEach, describe, expect, it } from 'vitest'
import { freshPostgres } from '../../../../test/support/postgres/fresh.js'
import { dialectFor, openDatabase } from '../database.js'
import { createKeyRepository } from './keys.js'
import { createModelRepository } from './models.js'
import type { ModelRecord } from '../../model-types.js'

const record = (id: string, accountId: string): ModelRecord => ({
  id, accountId, authorNickname: '', type: 'tts', title: 'Seeded', description: '', coverKey: '', trainMode: 'fast',
  state: 'trained', stateReason: '', visibility: 'public', tags: ['builtin'], languages: ['en'], titleLanguage: 'en',
  samples: [], quality: { created_at: '', updated_at: '', audios: [] }, profile: null, builtinVoice: id, defaultText: '',
  enhanceAudioQuality: false, likeCount: 0, markCount: 0, sharedCount: 0, taskCount: 0, score: 1.5,
  createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z',
})

describe.each(['sqlite', 'postgres'] as const)('%s: seeding a model from several nodes at once', (dialect) => {
  const cleanups: (() => Promise<unknown>)[] = []
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c()
  })

  it('inserts one row, its blob and index rows once, whichever node wins', async () => {
    const database = dialect === 'postgres' ? await freshPostgres() : undefined
    if (database) cleanups.push(() => database.drop())
    const url = database?.url ?? 'sqlite::memory:'
    const first = await openDatabase(dialectFor(url, tmpdir()))
    cleanups.push(() => first.destroy())
    const nodes = [first]
    if (database) for (let i = 0; i < 2; i++) nodes.push(await openDatabase(dialectFor(url, tmpdir())))
    cleanups.push(() => Promise.all(nodes.slice(1).map((n) => n.destroy())))
    await createKeyRepository(first).ensureAccount('parla', 'parla')
    const blob = { key: 'models/festival-slt/sample-0.wav', model_id: 'festival-slt', filename: 'sample.wav', content_type: 'audio/wav', size: 0 }
    const inserted = await Promise.all(
      nodes.flatMap((db) => [0, 1].map(() => createModelRepository(db).insertIfAbsent(record('festival-slt', 'parla'), [blob]))),
    )
    expect(inserted.filter(Boolean)).toHaveLength(1)
    const repo = createModelRepository(first)
    expect(await repo.findById('festival-slt')).toMatchObject({ title: 'Seeded', tags: ['builtin'], score: 1.5 })
    expect(await repo.blobKeys('festival-slt')).toEqual([blob.key])
    expect((await repo.list({ self: false, tags: ['builtin'], languages: ['en'], titleLanguages: [], pageNumber: 1, pageSize: 10, sortBy: 'score' }, 'x')).total).toBe(1)
  })
})
