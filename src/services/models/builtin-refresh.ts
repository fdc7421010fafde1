import type { Logger } from '../../logger.js'
import type { BlobStore } from '../../store/blob/types.js'
import type { KeyRepository } from '../../store/db/repositories/keys.js'
import type { ModelRepository } from '../../store/db/repositories/models.js'
import type { EngineSet } from '../../engines/tts/engine-set.js'
import { builtinModelId } from '../../voices/builtin.js'
import { sampleKey, seedBuiltinVoices } from '../../voices/seed.js'
import { generateBuiltinSamples, type BuiltinSampleOptions } from './builtin-samples.js'

export interface BuiltinRefreshOptions extends BuiltinSampleOptions {
  readonly repo: ModelRepository
  readonly keys: KeyRepository
  readonly engines: EngineSet
  readonly blobs: BlobStore
  readonly logger: Logger
}

/**
 * After the operator added, removed or replaced model packages (the `modelsDir` watcher, SIGHUP): the engines
 * look again, new voices become built-in voice models with their sample clip, and the rows of voices that are
 * gone are removed, so `GET /model` lists what this server can speak. On a shared database (several nodes)
 * a row stays: another node may still have the package. Never rejects; what fails is logged.
 */
export async function refreshBuiltinVoices(options: BuiltinRefreshOptions, signal: AbortSignal): Promise<void> {
  const { engines, repo, blobs, logger } = options
  try {
    const added = new Set<string>()
    const resampled = new Set<string>()
    for (const { engineId, changes } of await engines.rescan()) {
      const ids = (voices: readonly string[]) => voices.map((v) => builtinModelId(engineId, v))
      if (changes.added.length + changes.removed.length + changes.changed.length === 0) continue
      logger.info({ added: ids(changes.added), removed: ids(changes.removed), changed: ids(changes.changed) },
        'model packages changed; the voices follow without a restart')
      for (const id of ids(changes.added)) added.add(id)
      for (const id of ids(changes.changed)) resampled.add(id)
      for (const id of ids(changes.removed)) {
        if (options.shared) continue
        await repo.delete(id)
        await blobs.delete(sampleKey(id))
      }
    }
    if (added.size + resampled.size === 0) return
    // A replaced package sounds different: its old clip goes, and is spoken again with the new ones.
    for (const id of resampled) await blobs.delete(sampleKey(id))
    const voices = await seedBuiltinVoices(repo, options.keys, engines)
    // As for several nodes: the start's own run may still hold leases on the queue, which are not this run's to release.
    const made = await generateBuiltinSamples({ ...options, shared: true }, voices.filter((v) => added.has(v.modelId) || resampled.has(v.modelId)), signal)
    if (made > 0) logger.info({ made }, 'generated the new voices\' samples')
  } catch (err) {
    if (!signal.aborted) logger.warn({ err }, 'could not take in the changed model packages; send SIGHUP to try again')
  }
}

/**
 * When an engine says its voices changed by themselves (a model package's check ended): the rows follow
 * (`training` while checking, then `trained` or `failed` with the reason), so `GET /model` shows the verdict
 * at once, and the voices now known good get their sample clip. Calls while one runs are folded into one
 * more run. Never rejects.
 */
export function voiceStateFollower(options: BuiltinRefreshOptions, signal: AbortSignal): () => void {
  let running = false
  let again = false
  const run = async (): Promise<void> => {
    running = true
    try {
      do {
        again = false
        const voices = await seedBuiltinVoices(options.repo, options.keys, options.engines)
        await generateBuiltinSamples({ ...options, shared: true }, voices, signal)
      } while (again && !signal.aborted)
    } catch (err) {
      if (!signal.aborted) options.logger.warn({ err }, 'could not update the built-in voices\' states')
    } finally {
      running = false
    }
  }
  return () => {
    if (running) again = true
    else void run()
  }
}
