import { join } from 'node:path'
import type { Config } from '../../../config/schema.js'
import type { TtsEngineOptions } from '../types.js'

/** What the neural and upstream engines read from the config (their registry entries' `options`). */
export interface NeuralSettings {
  /** Folder of model packages (docs/models.md); empty: no neural voices. */
  readonly modelsDir: string
  /** Neural runtime processes: how many syntheses run at once. */
  readonly processes: number
  /** Inference threads per synthesis. */
  readonly threads: number
  /** Seconds without work after which the runtime processes and their models are stopped (0: never). */
  readonly idleSec?: number
  /** A Fish-compatible server to forward synthesis to (engine `upstream`), if configured. */
  readonly upstream?: UpstreamSettings
}

export interface UpstreamSettings {
  readonly url: string
  /** Bearer key for the upstream (the Fish cloud, or a Parla with keys). */
  readonly key: string
  /** `model` header sent upstream. */
  readonly model: string
  /** Voice ids offered: `default` (the upstream's own default), and upstream `reference_id`s. */
  readonly voices: readonly string[]
  readonly languages: readonly string[]
  readonly sampleRate: number
  readonly timeoutSec: number
  /** Attempts after the first, before any audio arrived. */
  readonly retries: number
}

/** The neural and upstream engines' factory options; without `neural`, there are no models and no upstream. */
export interface NeuralEngineOptions extends TtsEngineOptions {
  readonly neural?: NeuralSettings
}

export const NO_NEURAL: NeuralSettings = { modelsDir: '', processes: 1, threads: 1, idleSec: 0 }

const list = (s: string) => s.split(',').map((v) => v.trim()).filter(Boolean)

/** The settings from the config (`modelsDir` defaults to `<dataDir>/models`). */
export function neuralSettingsFrom(config: Config, dataDir: string): NeuralSettings {
  return {
    modelsDir: config.modelsDir || join(dataDir, 'models'),
    processes: config.neuralProcesses,
    threads: config.neuralThreads,
    idleSec: config.neuralIdleSec,
    ...(config.upstreamUrl && {
      upstream: {
        url: config.upstreamUrl, key: config.upstreamKey, model: config.upstreamModel,
        voices: ['default', ...list(config.upstreamVoices).map((v) => v.toLowerCase())],
        languages: list(config.upstreamLanguages).map((l) => l.toLowerCase()),
        sampleRate: config.upstreamSampleRate, timeoutSec: config.upstreamTimeoutSec, retries: config.upstreamRetries,
      },
    }),
  }
}
