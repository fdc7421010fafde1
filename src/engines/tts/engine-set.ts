import type { Config } from '../../config/schema.js'
import { silentLogger, type Logger } from '../../logger.js'
import { TTS_ENGINES, ttsEngineEntry, ttsEngineIds, type TtsEngineRegistry } from './registry.js'
import type { TtsEngine, VoiceChanges } from './types.js'

/**
 * The running TTS engines. Each starts on first use (festival spawns processes, eSpeak NG warms up workers),
 * so a server or test that never speaks pays nothing; `startAll` warms every engine up front.
 */
export interface EngineSet {
  readonly ids: readonly string[]
  get(id: string): Promise<TtsEngine>
  /** Engines already started, without starting others. */
  started(): TtsEngine[]
  /** Ids of engines still starting (for readiness). */
  starting(): string[]
  startAll(): Promise<TtsEngine[]>
  /** Asks the started engines whose voices come from files to look again (`TtsEngine.rescan`). */
  rescan(): Promise<{ readonly engineId: string; readonly changes: VoiceChanges }[]>
  close(): Promise<void>
}

export interface EngineSetOptions {
  readonly config: Config
  /** Default: the built-in engines (`TTS_ENGINES`). */
  readonly registry?: TtsEngineRegistry
  readonly logger?: Logger
}

export function createEngineSet(options: EngineSetOptions): EngineSet {
  const registry = options.registry ?? TTS_ENGINES
  const logger = options.logger ?? silentLogger
  const ids = ttsEngineIds(registry)
  const starting = new Map<string, Promise<TtsEngine>>()
  const ready = new Map<string, TtsEngine>()

  const get = (id: string): Promise<TtsEngine> => {
    let engine = starting.get(id)
    if (!engine) {
      engine = (async () => {
        const entry = ttsEngineEntry(id, registry)
        const factory = await entry.load()
        return factory({ ...entry.options?.(options.config), logger: logger.child({ engine: id }) })
      })()
      engine.then((e) => ready.set(id, e)).catch(() => starting.delete(id))
      starting.set(id, engine)
    }
    return engine
  }

  return {
    ids,
    get,
    started: () => [...ready.values()],
    starting: () => [...starting.keys()].filter((id) => !ready.has(id)),
    startAll: () => Promise.all(ids.map(get)),
    async rescan() {
      // Engines still starting may have read their files before the change: they are asked too, once
      // started. One never asked for reads its files when it starts.
      const settled = await Promise.allSettled(starting.values())
      const scanned = settled.flatMap((r) => (r.status === 'fulfilled' && r.value.rescan ? [r.value] : []))
      return Promise.all(scanned.map(async (e) => ({ engineId: e.id, changes: await e.rescan!() })))
    },
    async close() {
      const all = await Promise.allSettled(starting.values())
      await Promise.all(all.map((r) => (r.status === 'fulfilled' ? r.value.close() : undefined)))
      starting.clear()
      ready.clear()
    },
  }
}
