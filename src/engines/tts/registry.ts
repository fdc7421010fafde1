import { cpus } from 'node:os'
import { resolve } from 'node:path'
import type { Config } from '../../config/schema.js'
import { SpeechError } from '../../errors.js'
import { neuralSettingsFrom } from './neural/settings.js'
import type { TtsEngineFactory, TtsEngineOptions } from './types.js'

/** One engine: how to load it, and which settings it takes from the config. */
export interface TtsEngineEntry {
  /** Imports the engine's folder; called only when the engine is first used. */
  load(): Promise<TtsEngineFactory>
  /** The engine's own settings from the config (default: none), passed to its factory with the logger. */
  options?(config: Config): Omit<TtsEngineOptions, 'logger'> & Readonly<Record<string, unknown>>
}

/** Engine id → entry. `createDeps` takes another one in tests (`DepsOverrides.ttsEngines`). */
export type TtsEngineRegistry = Readonly<Record<string, TtsEngineEntry>>

/**
 * The built-in engines. Each lives in its own folder and is imported only when it is used, so a server that
 * runs only eSpeak NG never spawns festival or compiles flite. Adding an engine is its folder plus one line
 * here (see docs/architecture.md); the list order is the order of `GET /model`'s built-in voices.
 */
export const TTS_ENGINES: TtsEngineRegistry = {
  festival: {
    load: async () => (await import('./festival/index.js')).createFestivalEngine,
    options: (config) => ({ processes: config.festivalProcesses || cpus().length }),
  },
  flite: { load: async () => (await import('./flite/index.js')).createFliteEngine },
  'espeak-ng': { load: async () => (await import('./espeak-ng/index.js')).createEspeakEngine },
  neural: {
    load: async () => (await import('./neural/index.js')).createNeuralEngine,
    options: (config) => ({ neural: neuralSettingsFrom(config, resolve(config.dataDir)) }),
  },
  upstream: {
    load: async () => (await import('./upstream/index.js')).createUpstreamEngine,
    options: (config) => ({ neural: neuralSettingsFrom(config, resolve(config.dataDir)) }),
  },
}

export function ttsEngineIds(registry: TtsEngineRegistry = TTS_ENGINES): string[] {
  return Object.keys(registry)
}

/** The entry for `id`; `not_found` for an unknown id. */
export function ttsEngineEntry(id: string, registry: TtsEngineRegistry = TTS_ENGINES): TtsEngineEntry {
  const entry = Object.hasOwn(registry, id) ? registry[id] : undefined
  if (!entry) {
    throw new SpeechError('not_found', `[tts] unknown engine "${id}"; known engines: ${ttsEngineIds(registry).join(', ')}`)
  }
  return entry
}

/** The factory for `id`; `not_found` for an unknown id. */
export async function loadTtsEngineFactory(id: string, registry: TtsEngineRegistry = TTS_ENGINES): Promise<TtsEngineFactory> {
  return ttsEngineEntry(id, registry).load()
}
