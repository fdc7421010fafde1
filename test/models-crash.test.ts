import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { loadConfig } from '../src/config/load.js'
import { buildApp } from '../src/app.js'
import { createDeps, type Deps } from '../src/deps.js'
import { startTestServer, type TestServer } from './helpers/app.js'
import { createMultipart } from './helpers/models.js'
import { PNG_1PX, voiceWav } from './helpers/voice-audio.js'

const INTERNAL = { status: 500, message: 'Internal server error' }

describe('/model create is all-or-nothing', () => {
  let s: TestServer
  beforeAll(async () => {
    s = await startTestServer()
  })
  afterAll(async () => s.close())
  afterEach(() => vi.restoreAllMocks())

  const parts = () => [
    { name: 'title', value: 'fragile' },
    { name: 'tags', value: 'crash' },
    { name: 'voices', filename: 'a.wav', data: voiceWav({ seconds: 1.2 }) },
    { name: 'voices', filename: 'b.wav', data: voiceWav({ seconds: 1.2, f0: 200 }) },
    { name: 'cover_image', filename: 'c.png', data: PNG_1PX },
  ]

  async function expectNothingLeft() {
    expect(await s.deps.blobs.list('models/')).toEqual([])
    expect(await s.deps.db.selectFrom('models').select('id').execute()).toEqual([])
    expect(await s.deps.db.selectFrom('model_blobs').select('key').execute()).toEqual([])
    expect(await s.deps.db.selectFrom('model_tags').select('tag').execute()).toEqual([])
  }

  it('when the blob store fails on the second write, the first blob is removed and no row exists', async () => {
    const put = s.deps.blobs.put.bind(s.deps.blobs)
    let calls = 0
    vi.spyOn(s.deps.blobs, 'put').mockImplementation(async (key, body, options) => {
      if (++calls === 2) throw new Error('disk full')
      return put(key, body, options)
    })
    const res = await createMultipart(s, s.asAlice, parts())
    expect(res.statusCode).toBe(500)
    expect(res.json()).toEqual(INTERNAL)
    expect(calls).toBe(2)
    await expectNothingLeft()
  })

  it('when the last blob write fails after partly writing, nothing remains', async () => {
    const put = s.deps.blobs.put.bind(s.deps.blobs)
    vi.spyOn(s.deps.blobs, 'put').mockImplementation(async (key, body, options) => {
      await put(key, body, options) // the store kept the bytes, then reported a failure
      if (key.includes('/cover-')) throw new Error('fsync failed')
    })
    const res = await createMultipart(s, s.asAlice, parts())
    expect(res.statusCode).toBe(500)
    await expectNothingLeft()
  })

  it('when the row insert fails after every blob is written, the blobs are deleted', async () => {
    vi.spyOn(s.deps.models.repo, 'insert').mockRejectedValue(new Error('database is locked'))
    const res = await createMultipart(s, s.asAlice, parts())
    expect(res.statusCode).toBe(500)
    expect(res.json()).toEqual(INTERNAL)
    await expectNothingLeft()
  })

  it('the training job is queued in the transaction that inserts the model: if the commit fails, neither exists', async () => {
    const enqueueIn = s.deps.models.training.enqueueIn
    vi.spyOn(s.deps.models.training, 'enqueueIn').mockImplementation(async (trx, id) => {
      await enqueueIn(trx, id)
      // The job row is written (in the transaction); the node dies, or the database fails, before the commit.
      expect(await trx.selectFrom('jobs').select('id').where('subject', '=', id).execute()).toHaveLength(1)
      throw new Error('connection lost')
    })
    const res = await createMultipart(s, s.asAlice, parts())
    expect(res.statusCode).toBe(500)
    expect(res.json()).toEqual(INTERNAL)
    expect(await s.deps.db.selectFrom('jobs').select('id').execute()).toEqual([])
    await expectNothingLeft()
  })

  it('a failing cleanup does not hide the original error', async () => {
    vi.spyOn(s.deps.models.repo, 'insert').mockRejectedValue(new Error('constraint'))
    vi.spyOn(s.deps.blobs, 'delete').mockRejectedValue(new Error('cannot delete either'))
    const res = await createMultipart(s, s.asAlice, parts())
    expect(res.statusCode).toBe(500)
    expect(await s.deps.db.selectFrom('models').select('id').execute()).toEqual([])
    vi.restoreAllMocks()
    // What the failed cleanup left behind is unregistered, so recovery removes it.
    expect((await s.deps.blobs.list('models/')).length).toBe(3)
    expect(await s.deps.models.recover()).toEqual({ orphanBlobs: 3, requeued: 0 })
    await expectNothingLeft()
  })

  it('deleting a model while it trains leaves nothing behind', async () => {
    const res = await createMultipart(s, s.asAlice, parts())
    expect(res.statusCode).toBe(201)
    const id = res.json()._id
    const del = await s.app.inject({ method: 'DELETE', url: `/model/${id}`, headers: s.asAlice })
    expect(del.json()).toEqual({ status: 'ok' })
    await s.deps.models.training.idle()
    await expectNothingLeft()
  })
})

describe('restart recovery on the filesystem store', () => {
  let dir: string
  let deps: Deps | undefined
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'parla-models-'))
  })
  afterAll(async () => {
    await deps?.close()
    await rm(dir, { recursive: true, force: true })
  })
  const config = () => loadConfig({ env: {}, file: undefined, flags: { dataDir: dir, logLevel: 'silent' } })

  it('removes orphan blobs and re-queues models a restart interrupted', async () => {
    deps = await createDeps(config())
    deps.models.training.start() // no server here: take jobs as a started one does
    const account = await deps.keys.createAccount('carol')
    const input = {
      type: 'tts', title: 'survivor', trainMode: 'fast', visibility: 'private', description: '', texts: [], tags: [],
      // No enhanced copies, so the blob lists below are the uploads only (enhancement: test/training*.test.ts).
      voices: [{ filename: 'a.wav', bytes: voiceWav({ seconds: 1.5 }) }], enhanceAudioQuality: false,
    } as const
    const kept = await deps.models.create(account, input)
    const pending = await deps.models.create(account, { ...input, title: 'pending' })
    await deps.models.training.idle()
    // What a crash leaves: a half-created model's files, an unregistered cover, and jobs mid-training.
    await deps.blobs.put('models/0123456789abcdef0123456789abcdef/voice-0.wav', voiceWav())
    await deps.blobs.put(`models/${kept.id}/cover-deadbeef.png`, PNG_1PX)
    await deps.db.updateTable('models').set({ state: 'training' }).where('id', '=', kept.id).execute()
    await deps.db.updateTable('models').set({ state: 'created' }).where('id', '=', pending.id).execute()
    await deps.close()

    deps = await createDeps(config())
    // CLI commands open the same deps while a server may run: they must not touch models or blobs.
    expect((await deps.blobs.list('models/')).length).toBe(4)
    expect((await deps.models.get(account, kept.id)).state).toBe('training')
    // Starting the server runs recovery.
    const app = await buildApp(deps)
    await app.ready()
    await deps.models.training.idle()
    await app.close()
    expect((await deps.blobs.list('models/')).sort()).toEqual([kept.samples[0]!.key, pending.samples[0]!.key].sort())
    expect(existsSync(join(dir, 'blobs', 'models', '0123456789abcdef0123456789abcdef', 'voice-0.wav'))).toBe(false)
    expect(existsSync(join(dir, 'blobs', kept.samples[0]!.key))).toBe(true)
    for (const id of [kept.id, pending.id]) {
      const m = await deps.models.get(account, id)
      expect(m.state).toBe('trained')
      expect(m.quality.audios[0]!.quality_passed).toBe(true)
    }
  })
})

describe('recovery with other nodes on the database (PostgreSQL)', () => {
  let s: TestServer
  beforeAll(async () => {
    s = await startTestServer({}, {}, 'postgres')
    await s.app.ready() // the start-up recovery runs now, not on the first request below
  })
  afterAll(async () => s.close())

  it('sweeps unregistered blobs written over an hour ago, and leaves younger ones (another node may be creating them)', async () => {
    const old = 'models/0123456789abcdef0123456789abcdef/voice-0.wav'
    const young = 'models/fedcba9876543210fedcba9876543210/voice-0.wav'
    await s.deps.blobs.put(old, voiceWav())
    await s.deps.blobs.put(young, voiceWav())
    const twoHoursAgo = new Date(Date.now() - 2 * 3600_000).toISOString()
    await s.deps.db.updateTable('shared_blobs').set({ updated_at: twoHoursAgo }).where('key', '=', old).execute()
    // A registered blob, however old, stays.
    const created = await createMultipart(s, s.asAlice, [{ name: 'title', value: 'kept' }, { name: 'voices', filename: 'a.wav', data: voiceWav({ seconds: 1.2 }) }])
    expect(created.statusCode).toBe(201)
    const kept = (await s.deps.blobs.list(`models/${created.json()._id}/`))[0]!
    await s.deps.db.updateTable('shared_blobs').set({ updated_at: twoHoursAgo }).where('key', '=', kept).execute()

    expect((await s.deps.models.recover()).orphanBlobs).toBe(1)
    expect(await s.deps.blobs.get(old)).toBeNull()
    expect(await s.deps.blobs.get(young)).not.toBeNull()
    expect(await s.deps.blobs.get(kept)).not.toBeNull()
    await s.deps.models.training.idle()
  })
})
