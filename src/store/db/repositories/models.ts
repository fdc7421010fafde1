import { sql, type Transaction } from 'kysely'
import type { ListModelsQuery, ModelRecord, ModelState, QualityReport, StoredSample } from '../../model-types.js'
import type { Db } from '../database.js'
import type { BlobsTable, Database } from '../schema.js'
import type { ChangeFeed } from '../changes.js'
import { RECORD_COLUMNS, toRecord, toRow, type ModelRow } from './model-rows.js'
import { createRowCache } from './row-cache.js'

/** What a training run writes back; every key but `state` is optional. */
export interface ModelStatePatch {
  readonly state: ModelState
  readonly stateReason?: string
  readonly quality?: QualityReport
  readonly languages?: readonly string[]
  readonly profile?: unknown
  /** Samples with transcripts filled in by training (ASR). */
  readonly samples?: readonly StoredSample[]
}

/** Columns PATCH /model may change. */
export interface ModelFieldsPatch {
  readonly title?: string
  readonly titleLanguage?: string
  readonly description?: string
  readonly visibility?: string
  readonly tags?: readonly string[]
  readonly coverKey?: string
}

const SORTS = {
  score: ['score', 'created_at', 'id'],
  task_count: ['task_count', 'created_at', 'id'],
  created_at: ['created_at', 'id'],
} as const

const columns = RECORD_COLUMNS.map((c) => `models.${c}` as const)
const lowerUnique = (values: readonly string[]) => [...new Set(values.map((v) => v.toLowerCase()))]
/** `%` and `_` in the user's text are literal; `\` escapes them (portable `LIKE … ESCAPE`). */
const likePattern = (needle: string) => `%${needle.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`

/** Replaces a model's rows in `model_tags` or `model_languages` (the filter indexes). */
async function writeIndex(
  trx: Transaction<Database>,
  index: 'tags' | 'languages',
  modelId: string,
  values: readonly string[],
  replace: boolean,
): Promise<void> {
  const unique = lowerUnique(values)
  if (index === 'tags') {
    if (replace) await trx.deleteFrom('model_tags').where('model_id', '=', modelId).execute()
    if (unique.length > 0) await trx.insertInto('model_tags').values(unique.map((tag) => ({ model_id: modelId, tag }))).execute()
  } else {
    if (replace) await trx.deleteFrom('model_languages').where('model_id', '=', modelId).execute()
    if (unique.length === 0) return
    await trx.insertInto('model_languages').values(unique.map((language) => ({ model_id: modelId, language }))).execute()
  }
}

/**
 * Voice model rows, their tag/language index rows and their blob registry. Only Kysely, so any dialect. With a
 * `shared` change feed (nodes on one PostgreSQL) rows read by id are cached per node (row-cache.ts).
 */
export function createModelRepository(db: Db, shared?: ChangeFeed) {
  const cache = shared && createRowCache<ModelRecord>(shared, 'model')
  const announce = async (id: string) => cache?.invalidate(id)
  const base = () =>
    db
      .selectFrom('models')
      .innerJoin('accounts', 'accounts.id', 'models.account_id')
      .select(columns)
      .select(['models.profile', 'accounts.nickname as author_nickname'])

  // The hottest query (GET /model/{id}) is built and compiled once; each call only swaps the id parameter.
  const byId = base().where('models.id', '=', '').compile()
  if (byId.parameters.length !== 1) throw new Error('models repository: the by-id query must have one parameter')

  return {
    /**
     * Inserts the model with its blob, tag and language rows in one transaction; `also` adds its own rows to
     * that transaction (the model's training job), so either all of them exist or none.
     */
    async insert(model: ModelRecord, blobs: readonly BlobsTable[], also?: (trx: Db) => Promise<void>): Promise<void> {
      await db.transaction().execute(async (trx) => {
        await trx.insertInto('models').values(toRow(model)).execute()
        if (blobs.length > 0) await trx.insertInto('model_blobs').values([...blobs]).execute()
        await writeIndex(trx, 'tags', model.id, model.tags, false)
        await writeIndex(trx, 'languages', model.id, model.languages, false)
        await also?.(trx)
      })
      await announce(model.id)
    },

    /**
     * Inserts like `insert` unless a model with that id exists (then nothing changes); true when it inserted.
     * Nodes starting together may race to seed the same built-in voice: exactly one row results.
     */
    async insertIfAbsent(model: ModelRecord, blobs: readonly BlobsTable[]): Promise<boolean> {
      return db.transaction().execute(async (trx) => {
        const r = await trx.insertInto('models').values(toRow(model)).onConflict((oc) => oc.column('id').doNothing()).executeTakeFirst()
        if (Number(r.numInsertedOrUpdatedRows ?? 0n) === 0) return false
        if (blobs.length > 0) await trx.insertInto('model_blobs').values([...blobs]).onConflict((oc) => oc.column('key').doNothing()).execute()
        await writeIndex(trx, 'tags', model.id, model.tags, false)
        await writeIndex(trx, 'languages', model.id, model.languages, false)
        return true
      })
    },

    async findById(id: string): Promise<ModelRecord | undefined> {
      const load = async () => {
        const { rows } = await db.executeQuery<ModelRow>({ ...byId, parameters: [id] })
        return rows[0] && toRecord(rows[0])
      }
      return cache ? cache.get(id, load) : load()
    },

    /** One page plus the total. Visibility: `self` lists every own model; otherwise only public ones. */
    async list(q: ListModelsQuery, callerAccountId: string): Promise<{ total: number; items: ModelRecord[] }> {
      let where = db.selectFrom('models')
      if (q.self) where = where.where('models.account_id', '=', callerAccountId)
      else {
        where = where.where('models.visibility', '=', 'public')
        if (q.authorId !== undefined) where = where.where('models.account_id', '=', q.authorId)
      }
      if (q.title) where = where.where(sql<boolean>`models.title_search like ${likePattern(q.title)} escape '\\'`)
      if (q.tags.length > 0) {
        const tagged = db.selectFrom('model_tags').select('model_id').where('tag', 'in', lowerUnique(q.tags))
        where = where.where('models.id', 'in', tagged)
      }
      if (q.languages.length > 0) {
        const speaking = db.selectFrom('model_languages').select('model_id').where('language', 'in', lowerUnique(q.languages))
        where = where.where('models.id', 'in', speaking)
      }
      if (q.titleLanguages.length > 0) where = where.where('models.title_language', 'in', lowerUnique(q.titleLanguages))

      const counted = await where.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()
      const total = Number(counted.n)
      const offset = (q.pageNumber - 1) * q.pageSize
      if (total <= offset) return { total, items: [] }
      let page = where
        .innerJoin('accounts', 'accounts.id', 'models.account_id')
        .select(columns)
        .select('accounts.nickname as author_nickname')
      for (const column of SORTS[q.sortBy]) page = page.orderBy(`models.${column}`, 'desc')
      const rows = await page.limit(q.pageSize).offset(offset).execute()
      return { total, items: rows.map(toRecord) }
    },

    /**
     * Changes the given fields (and `updated_at`), replaces the tag rows when tags are given, and registers /
     * unregisters blobs (a new cover) in the same transaction.
     */
    async updateFields(
      id: string,
      patch: ModelFieldsPatch,
      now: string,
      blobs: { add?: readonly BlobsTable[]; remove?: readonly string[] } = {},
    ): Promise<void> {
      await db.transaction().execute(async (trx) => {
        if (blobs.remove?.length) await trx.deleteFrom('model_blobs').where('key', 'in', [...blobs.remove]).execute()
        if (blobs.add?.length) await trx.insertInto('model_blobs').values([...blobs.add]).execute()
        await trx
          .updateTable('models')
          .set({
            updated_at: now,
            ...(patch.title !== undefined ? { title: patch.title, title_search: patch.title.toLowerCase() } : {}),
            ...(patch.titleLanguage !== undefined ? { title_language: patch.titleLanguage } : {}),
            ...(patch.description !== undefined ? { description: patch.description } : {}),
            ...(patch.visibility !== undefined ? { visibility: patch.visibility } : {}),
            ...(patch.tags !== undefined ? { tags: JSON.stringify(patch.tags) } : {}),
            ...(patch.coverKey !== undefined ? { cover_image: patch.coverKey } : {}),
          })
          .where('id', '=', id)
          .execute()
        if (patch.tags !== undefined) await writeIndex(trx, 'tags', id, patch.tags, true)
      })
      await announce(id)
    },

    /** Moves `state` (and what training measured). Only from one of `from`, so a run never revives a deleted row. */
    async setState(id: string, patch: ModelStatePatch, now: string, from?: readonly ModelState[]): Promise<boolean> {
      const profile = patch.profile === undefined ? {} : { profile: patch.profile === null ? null : JSON.stringify(patch.profile) }
      const done = await db.transaction().execute(async (trx) => {
        let update = trx
          .updateTable('models')
          .set({
            state: patch.state,
            updated_at: now,
            ...(patch.stateReason !== undefined ? { state_reason: patch.stateReason } : {}),
            ...(patch.quality !== undefined ? { quality: JSON.stringify(patch.quality) } : {}),
            ...(patch.languages !== undefined ? { languages: JSON.stringify(patch.languages) } : {}),
            ...(patch.samples !== undefined ? { samples: JSON.stringify(patch.samples) } : {}),
            ...profile,
          })
          .where('id', '=', id)
        if (from && from.length > 0) update = update.where('state', 'in', [...from])
        const changed = Number((await update.executeTakeFirst()).numUpdatedRows) > 0
        if (changed && patch.languages !== undefined) await writeIndex(trx, 'languages', id, patch.languages, true)
        return changed
      })
      if (done) await announce(id)
      return done
    },

    /**
     * Registers a blob training wrote (an enhanced sample) if the model still exists; idempotent, so a
     * re-run after a restart may register the same key again. False when the model is gone.
     */
    async registerBlob(row: BlobsTable): Promise<boolean> {
      return db.transaction().execute(async (trx) => {
        const model = await trx.selectFrom('models').select('id').where('id', '=', row.model_id).executeTakeFirst()
        if (!model) return false
        await trx.insertInto('model_blobs').values(row).onConflict((oc) => oc.column('key').doUpdateSet({ size: row.size })).execute()
        return true
      })
    },

    /** Every registered blob key (crash recovery compares them with what the blob store holds). */
    async registeredKeys(): Promise<Set<string>> {
      const rows = await db.selectFrom('model_blobs').select('key').execute()
      return new Set(rows.map((r) => r.key))
    },

    async blobKeys(id: string): Promise<string[]> {
      const rows = await db.selectFrom('model_blobs').select('key').where('model_id', '=', id).execute()
      return rows.map((r) => r.key)
    },

    /** Deletes the row; blob, tag and language rows go with it (foreign keys cascade). */
    async delete(id: string): Promise<boolean> {
      const result = await db.deleteFrom('models').where('id', '=', id).executeTakeFirst()
      await announce(id)
      return Number(result.numDeletedRows) > 0
    },

    async idsInState(states: readonly ModelState[]): Promise<string[]> {
      // Built-in voices are never trained: one listed `training` is having its model package checked.
      const rows = await db.selectFrom('models').select('id').where('state', 'in', [...states]).where('builtin_voice', 'is', null).orderBy('created_at').execute()
      return rows.map((r) => r.id)
    },
  }
}

export type ModelRepository = ReturnType<typeof createModelRepository>
