import { randomBytes } from 'node:crypto'
import { hostname } from 'node:os'
import { SpeechError } from '../../errors.js'
import type { BlobStore } from '../../store/blob/types.js'
import type { Db } from '../../store/db/database.js'
import { createModelRepository, type ModelFieldsPatch } from '../../store/db/repositories/models.js'
import { createJobRepository } from '../../store/db/repositories/jobs.js'
import type { JobRunnerOptions } from '../jobs/runner.js'
import type { ChangeFeed } from '../../store/db/changes.js'
import { coverMedia, createModel } from './create.js'
import { detectLanguage } from './media.js'
import { analysisStep, type SampleTranscriber } from './analysis-step.js'
import { qualityStep } from './quality-step.js'
import { createTrainingQueue, type TrainingQueue, type TrainingStep } from './training.js'
import type {
  CreateModelInput,
  DecodeAudio,
  ListModelsQuery,
  ModelPage,
  ModelRecord,
  UpdateModelInput,
} from '../../store/model-types.js'

export interface ModelServiceOptions {
  readonly db: Db
  /** Called as `blobs.put(...)` etc. at each use, so a test may wrap the store's methods. */
  readonly blobs: BlobStore
  readonly decode: DecodeAudio
  readonly minSampleSeconds: number
  readonly maxSampleSeconds: number
  /** English ASR for samples sent without a transcript (`texts` are optional). */
  readonly transcribe?: SampleTranscriber
  /** Least speech a sample needs to pass; default `minSampleSeconds`. */
  readonly minSpeechSeconds?: number
  /** Training steps after the quality check and the voice analysis (tests use it to stall a job). */
  readonly extraSteps?: readonly TrainingStep[]
  readonly trainingConcurrency?: number
  /** See TrainingOptions. */
  readonly trainingTimeoutMs?: number
  readonly closeTimeoutMs?: number
  /**
   * The job queue's node settings. `shared`: other nodes use this database too (PostgreSQL), so startup
   * leaves their leases and their half-written blobs alone.
   */
  readonly jobs?: Partial<Pick<JobRunnerOptions, 'owner' | 'leaseMs' | 'pollMs' | 'maxAttempts' | 'backoffMs'>> & { readonly shared?: boolean }
  /** Nodes sharing the database: model rows are cached per node and changes announced here. */
  readonly changes?: ChangeFeed
  readonly onError?: (err: unknown, context: string) => void
}

/** A stored file to send back: a voice sample or a cover image. */
export interface StoredFile {
  readonly bytes: Uint8Array
  readonly contentType: string
  readonly filename: string
}

/** Ids are 32 hex characters; anything much longer cannot exist, so it is not looked up. */
const MAX_ID_LENGTH = 128
const shortId = (id: string) => (id.length > 40 ? `${id.slice(0, 40)}…` : id)
const IMAGE_TYPES: Record<string, string> = { png: 'image/png', jpg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp' }
/**
 * On a shared database, an unregistered blob younger than this may belong to a create or a training job under
 * way on another node (a training job is stopped after 10 minutes), so sweeps leave it.
 */
const ORPHAN_AGE_MS = 60 * 60_000
const notFound = (id: string) => new SpeechError('not_found', `Voice model '${shortId(id)}' not found`)

/**
 * Voice models with their access rules: `public` models are listed for everyone; `unlist` ones are readable
 * by id; `private` ones exist only for their owner (404 for anyone else). Only the owner may change or
 * delete a model; others get 403 where they can see it and 404 where they cannot.
 */
export function createModelService(options: ModelServiceOptions) {
  const repo = createModelRepository(options.db, options.changes)
  const jobs = createJobRepository(options.db)
  const { shared = false, owner = `${hostname()}/${process.pid}/${randomBytes(4).toString('hex')}`, ...jobSettings } = options.jobs ?? {}
  const training: TrainingQueue = createTrainingQueue({
    jobs: { jobs, owner, ...jobSettings },
    repo,
    blobs: options.blobs,
    decode: options.decode,
    steps: [
      qualityStep(options),
      analysisStep({
        blobs: options.blobs,
        repo,
        minSpeechSeconds: options.minSpeechSeconds ?? options.minSampleSeconds,
        ...(options.transcribe && { transcribe: options.transcribe }),
      }),
      ...(options.extraSteps ?? []),
    ],
    concurrency: options.trainingConcurrency ?? 1,
    ...(options.trainingTimeoutMs !== undefined && { jobTimeoutMs: options.trainingTimeoutMs }),
    ...(options.closeTimeoutMs !== undefined && { closeTimeoutMs: options.closeTimeoutMs }),
    onError: (err, id) => options.onError?.(err, `training model ${id}`),
  })

  async function readable(accountId: string, id: string): Promise<ModelRecord> {
    const model = id.length <= MAX_ID_LENGTH ? await repo.findById(id) : undefined
    if (!model || (model.visibility === 'private' && model.accountId !== accountId)) throw notFound(id)
    return model
  }

  async function writable(accountId: string, id: string): Promise<ModelRecord> {
    const model = await readable(accountId, id)
    if (model.accountId !== accountId) {
      const msg = `Voice model '${shortId(id)}' belongs to another account; only its owner may change or delete it`
      throw new SpeechError('forbidden', msg)
    }
    return model
  }

  const deleteBlobs = async (keys: readonly string[]) => {
    const results = await Promise.allSettled(keys.map((k) => options.blobs.delete(k)))
    for (const r of results) if (r.status === 'rejected') options.onError?.(r.reason, 'deleting a model blob')
  }

  let sweeper: NodeJS.Timeout | undefined
  /** Deletes blobs under `models/` no row registers (on a shared database, only old ones); returns how many. */
  const sweepOrphans = async (): Promise<number> => {
    // Listed before the registry is read: a blob registered in between is then in the registry, never deleted.
    const keys = await options.blobs.list('models/', shared ? { writtenBefore: Date.now() - ORPHAN_AGE_MS } : {})
    const registered = await repo.registeredKeys()
    const orphans = keys.filter((k) => !registered.has(k))
    await deleteBlobs(orphans)
    return orphans.length
  }

  return {
    repo,
    training,

    async create(accountId: string, input: CreateModelInput): Promise<ModelRecord> {
      const id = await createModel({ ...options, repo, enqueueIn: training.enqueueIn }, accountId, input)
      // Read before this node looks for the job, so the answer shows the model as created (training starts right after).
      const model = await repo.findById(id)
      training.wake()
      if (!model) throw new SpeechError('internal_error', `model ${id} vanished after create`)
      return model
    },

    get: readable,

    async list(accountId: string, query: ListModelsQuery): Promise<ModelPage> {
      return repo.list(query, accountId)
    },

    async update(accountId: string, id: string, input: UpdateModelInput): Promise<void> {
      const model = await writable(accountId, id)
      const patch: ModelFieldsPatch = {
        ...(input.title !== undefined ? { title: input.title, titleLanguage: detectLanguage(input.title) } : {}),
        ...(input.description !== undefined ? { description: input.description } : {}),
        ...(input.visibility !== undefined ? { visibility: input.visibility } : {}),
        ...(input.tags !== undefined ? { tags: input.tags } : {}),
      }
      const now = new Date().toISOString()
      if (input.coverImage === undefined) return repo.updateFields(id, patch, now)
      // New cover under a new key: write it, then swap the registry rows, then drop the old file.
      const old = model.coverKey ? [model.coverKey] : []
      if (input.coverImage === null) {
        await repo.updateFields(id, { ...patch, coverKey: '' }, now, { remove: old })
      } else {
        const media = coverMedia(input.coverImage.bytes)
        const key = `models/${id}/cover-${randomBytes(4).toString('hex')}.${media.ext}`
        const bytes = input.coverImage.bytes
        await options.blobs.put(key, bytes)
        try {
          const filename = input.coverImage.filename || `cover.${media.ext}`
          const row = { key, model_id: id, filename, content_type: media.type, size: bytes.length }
          await repo.updateFields(id, { ...patch, coverKey: key }, now, { add: [row], remove: old })
        } catch (err) {
          await deleteBlobs([key])
          throw err
        }
      }
      await deleteBlobs(old)
    },

    async remove(accountId: string, id: string): Promise<void> {
      await writable(accountId, id)
      // Row first: a crash after this leaves only unregistered blobs, which recovery deletes. Everything under
      // the model's prefix goes, also a copy a running training step wrote but had not registered yet.
      if (await repo.delete(id)) await deleteBlobs(await options.blobs.list(`models/${id}/`))
    },

    async sample(accountId: string, id: string, index: number): Promise<StoredFile> {
      const model = await readable(accountId, id)
      const sample = model.samples[index]
      const bytes = sample ? await options.blobs.get(sample.key) : null
      if (!sample || !bytes) {
        throw new SpeechError('not_found', `Voice model '${shortId(id)}' has no sample ${index}; it has ${model.samples.length}`)
      }
      return { bytes, contentType: sample.contentType, filename: sample.filename }
    },

    async cover(accountId: string, id: string): Promise<StoredFile> {
      const model = await readable(accountId, id)
      const bytes = model.coverKey ? await options.blobs.get(model.coverKey) : null
      if (!bytes) throw new SpeechError('not_found', `Voice model '${shortId(id)}' has no cover image`)
      const ext = model.coverKey.slice(model.coverKey.lastIndexOf('.') + 1)
      const type = IMAGE_TYPES[ext] ?? 'application/octet-stream'
      return { bytes, contentType: type, filename: `cover.${ext}` }
    },

    /**
     * Crash recovery, run once at start before serving; then this node takes jobs. Queues a `train` job for every model left in `created`
     * or `training` (a job already queued or held by a live node is left as it is; training is deterministic
     * and the samples are stored, so a re-run gives what an interrupted run would have). On a single node it
     * also frees the leases a previous run of it held and deletes blobs under `models/` that no row registers
     * (a create or cover change that died half-way, or a delete that died after its row was gone). With other
     * nodes on the database, an unregistered blob may be another node's create or training in progress, so
     * only those written more than `ORPHAN_AGE_MS` ago go, at start and every hour after.
     */
    async recover(): Promise<{ orphanBlobs: number; requeued: number }> {
      const orphanBlobs = await sweepOrphans()
      if (!shared) await jobs.releaseLeases('train')
      else sweeper ??= setInterval(() => void sweepOrphans().catch((err) => options.onError?.(err, 'sweeping orphaned blobs')), ORPHAN_AGE_MS).unref()
      const todo = await repo.idsInState(['created', 'training'])
      for (const id of todo) await training.enqueue(id)
      training.start()
      return { orphanBlobs, requeued: todo.length }
    },

    async close(): Promise<void> {
      clearInterval(sweeper)
      await training.close()
    },
  }
}

export type ModelService = ReturnType<typeof createModelService>
