import { tmpdir } from 'node:os'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createLogger } from '../../logger.js'
import { dialectFor, openDatabase, type Db } from '../../store/db/database.js'
import { createKeyRepository } from '../../store/db/repositories/keys.js'
import { createQuotaRepository } from '../../store/db/repositories/quota.js'
import { UNLIMITED_LIMITS } from './limits.js'
import { createQuotaService } from './quota.js'

/** Counting an unlimited account's request happens beside the work, not before it (real SQLite database). */
describe('quota: counting where no limit applies', () => {
  let db: Db
  beforeEach(async () => { db = await openDatabase(dialectFor('sqlite::memory:', tmpdir())) })
  afterEach(async () => db.destroy())

  const principal = async () => {
    const { info } = await createKeyRepository(db).create('counted')
    return { accountId: info.accountId, keyId: info.id }
  }
  const nextTurn = () => new Promise((resolve) => setImmediate(resolve))

  it('admits at once and has the request and its characters counted by the next turn', async () => {
    const repo = createQuotaRepository(db)
    const quota = createQuotaService({ repo, defaults: UNLIMITED_LIMITS, logger: createLogger('silent') })
    const who = await principal()
    const ticket = await quota.admit(who, { characters: 12 })
    await nextTurn()
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(await quota.usage(who.accountId)).toMatchObject({ requests: 1, characters: 12 })
    await ticket.release()
    await quota.close()
  })

  it('a count the database refuses is logged and loses only that count; the request is still admitted', async () => {
    const lines: string[] = []
    const logger = createLogger('warn', { write: (line: string) => void lines.push(line) })
    const real = createQuotaRepository(db)
    const repo = { ...real, addUsage: () => Promise.reject(new Error('disk I/O error')) }
    const quota = createQuotaService({ repo, defaults: UNLIMITED_LIMITS, logger })
    const ticket = await quota.admit(await principal(), { characters: 5 })
    await nextTurn()
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(lines.map((l) => JSON.parse(l) as { msg: string; err: { message: string } })).toEqual([
      expect.objectContaining({ msg: '[quota] counting a request failed', err: expect.objectContaining({ message: 'disk I/O error' }) }),
    ])
    await ticket.release()
    await quota.close()
  })
})
