import { randomBytes } from 'node:crypto'
import { hostname } from 'node:os'
import type { EngineSet } from '../../engines/tts/engine-set.js'
import type { BlobStore } from '../../store/blob/types.js'
import type { Db } from '../../store/db/database.js'
import { createJobRepository } from '../../store/db/repositories/jobs.js'
import type { BuiltinVoice } from '../../voices/builtin.js'
import { hasOwnSample, sampleKey, speakSample } from '../../voices/seed.js'
import { createJobRunner } from '../jobs/runner.js'

export interface BuiltinSampleOptions {
  readonly db: Db
  readonly blobs: BlobStore
  readonly engines: EngineSet
  /** Other nodes use this database (PostgreSQL): leases left in the job table may be theirs. */
  readonly shared: boolean
  readonly leaseMs?: number
  readonly onError?: (err: unknown, modelId: string) => void
}

const KIND = 'voice-sample'

/**
 * Speaks the sample clip of every built-in voice that has none (`GET /model/{id}/samples/0`; clone-only
 * voices have no voice of their own and are left out), once for all nodes on the database: each missing clip
 * is a `voice-sample` job on the shared queue, so when nodes start together each clip is spoken by one of them
 * (they share the work), and a node that dies half-way leaves its clip to another after the lease. Resolves
 * with how many clips this node spoke, once no clip is queued or being spoken on any node; `signal`
 * (shutdown) hands this node's job back and stops.
 */
export async function generateBuiltinSamples(options: BuiltinSampleOptions, voices: readonly BuiltinVoice[], signal: AbortSignal): Promise<number> {
  const { blobs, engines } = options
  const jobs = createJobRepository(options.db)
  const byId = new Map(voices.map((v) => [v.modelId, v]))
  let made = 0
  const runner = createJobRunner({
    jobs,
    kind: KIND,
    owner: `${hostname()}/${process.pid}/${randomBytes(4).toString('hex')}`,
    ...(options.leaseMs !== undefined && { leaseMs: options.leaseMs }),
    handler: async (modelId, _attempt, stop) => {
      const voice = byId.get(modelId)
      // Another node finished it before its job was deleted, or (nodes with other engines) it is not ours.
      if (!voice || (await blobs.list(`models/${modelId}/`)).includes(sampleKey(modelId))) return
      await speakSample(voice, engines, blobs, AbortSignal.any([signal, stop]))
      // Its package was removed while it spoke (clips are made when a package's check ends, at any time): the
      // removal deletes the clip after the engine forgot the voice, so a clip put before that check is gone.
      if (!(await engines.get(voice.engineId)).voices().some((v) => v.id === voice.voice.id)) return void await blobs.delete(sampleKey(modelId))
      made++
    },
    onGiveUp: async () => {}, // the voice keeps answering 404 for its sample; the next start tries again
    onError: (err, modelId) => options.onError?.(err, modelId),
  })
  const stopped = new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })))
  try {
    // A single node starting: any lease in the table is its own previous run's, which is gone.
    if (!options.shared) await jobs.releaseLeases(KIND)
    const have = new Set(await blobs.list('models/'))
    // A voice being checked is spoken when its check ends well (`refreshVoiceStates`), not tried before.
    for (const v of voices) if (hasOwnSample(v) && !v.voice.checking && !have.has(sampleKey(v.modelId))) await runner.add(v.modelId)
    runner.start()
    await Promise.race([runner.idle(), stopped])
  } finally {
    await runner.close(5_000)
  }
  return made
}
