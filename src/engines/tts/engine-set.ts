import { cpus } from 'node:os'
import { loadTtsEngineFactory, ttsEngineIds } from './registry.js'
import type { TtsEngine } from './types.js'

/**
 * The running TTS engines. Each starts on first use (festival spawns processes, eSpeak NG warms up workers),
 * so a server or test that never speaks pays nothing; `startAll` warms every engine up front.
 */
export interface EngineSet {
  readonly ids: readonly string[]
  get(id: string): Promise<TtsEngine>
  /** Engines already started, without starting others. */
  started(): TtsEngine[]
  startAll(): Promise<TtsEngine[]>
  close(): Promise<void>
}

export function createEngineSet(options: { readonly festivalProcesses: number }): EngineSet {
  const starting = new Map<string, Promise<TtsEngine>>()
  const ready = new Map<string, TtsEngine>()
  const processes: Record<string, number> = { festival: options.festivalProcesses || cpus().length }

  const get = (id: string): Promise<TtsEngine> => {
    let engine = starting.get(id)
    if (!engine) {
      engine = loadTtsEngineFactory(id).then((factory) => factory(processes[id] ? { processes: processes[id] } : {}))
      engine.then((e) => ready.set(id, e)).catch(() => starting.delete(id))
      starting.set(id, engine)
    }
    return engine
  }

  return {
    ids: ttsEngineIds(),
    get,
    started: () => [...ready.values()],
    startAll: () => Promise.all(ttsEngineIds().map(get)),
    async close() {
      const all = await Promise.allSettled(starting.values())
      await Promise.all(all.map((r) => (r.status === 'fulfilled' ? r.value.close() : undefined)))
      starting.clear()
      ready.clear()
    },
  }
}
