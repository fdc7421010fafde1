import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { availableParallelism } from 'node:os'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { SpeechError } from '../../../errors.js'
import type { AsrEngine, RecognizedWord } from '../types.js'
import { DecoderPool, type WorkerEntry } from './pool.js'
import { DEFAULT_PRESET, decoderArgs, MODEL_DIR, type DecoderPreset } from './settings.js'

export interface PocketsphinxEngineOptions {
  /** Decoder threads; each holds its own model (about 100 MB of native memory). Default: the number of CPU cores. */
  readonly workers?: number
  /** Decoder settings; see settings.ts and docs/decisions.md. */
  readonly preset?: DecoderPreset
  /** Extra pocketsphinx arguments appended after the preset, e.g. `['-lw', '7']`. */
  readonly extraArgs?: readonly string[]
  /** Model directory laid out like Debian's pocketsphinx-en-us. */
  readonly modelDir?: string
  /** Samples fed per decoder call; an abort waits for at most one block. Default 4096 (256 ms). */
  readonly blockSamples?: number
  /** How long an aborted job may take to stop before its worker is replaced. Default 5000 ms. */
  readonly stopTimeoutMs?: number
}

export interface PocketsphinxEngine extends AsrEngine {
  /** Resolves once every worker has loaded its decoder; rejects with the reason when none can. */
  ready(): Promise<void>
}

const SAMPLE_RATE = 16_000

/**
 * The worker script next to this file. A compiled build has `worker.js`. From TypeScript sources (tsx,
 * vitest) the worker is `worker.ts`, which Node cannot load by itself, and on Node 20 a worker does not
 * inherit the parent's loader hooks (nor honour `--import` in its execArgv): a small bootstrap registers
 * tsx inside the worker first.
 */
function workerEntry(): WorkerEntry {
  const compiled = new URL('./worker.js', import.meta.url)
  if (existsSync(fileURLToPath(compiled))) return { script: compiled }
  // require.resolve finds the CommonJS build of tsx's API; its ESM twin sits beside it and is the one whose
  // register() works inside a worker.
  const api = createRequire(import.meta.url).resolve('tsx/esm/api').replace(/\.cjs$/, '.mjs')
  const source = new URL('./worker.ts', import.meta.url).href
  return {
    script: `import(${JSON.stringify(pathToFileURL(api).href)})` +
      `.then((m) => { m.register(); return import(${JSON.stringify(source)}) })`,
  }
}

/** `en`, `en-US`, `en_gb` → `en`. */
function baseLanguage(language: string): string {
  return language.toLowerCase().split(/[-_]/)[0] ?? ''
}

/** In-process pocketsphinx (koffi → libpocketsphinx.so.3) in worker threads, one decoder per worker. */
export function createPocketsphinxEngine(options: PocketsphinxEngineOptions = {}): PocketsphinxEngine {
  const workers = Math.max(1, Math.floor(options.workers ?? availableParallelism()))
  const modelDir = options.modelDir ?? MODEL_DIR
  if (!existsSync(`${modelDir}/en-us.lm.bin`)) {
    const msg = `[pocketsphinx] no model in ${modelDir}; install the Debian package pocketsphinx-en-us`
    throw new SpeechError('unavailable', msg)
  }
  const pool = new DecoderPool({
    size: workers,
    entry: workerEntry(),
    setup: {
      args: decoderArgs(options.preset ?? DEFAULT_PRESET, modelDir, options.extraArgs),
      blockSamples: options.blockSamples ?? 4096,
    },
    ...(options.stopTimeoutMs !== undefined ? { stopTimeoutMs: options.stopTimeoutMs } : {}),
  })
  const capabilities = {
    languages: ['en'], sampleRate: SAMPLE_RATE, maxUtteranceSeconds: 20, parallelism: workers,
  }
  return {
    id: 'pocketsphinx',
    capabilities,
    ready: () => pool.ready(),
    transcribe(samples, callOptions): Promise<readonly RecognizedWord[]> {
      const language = baseLanguage(callOptions.language)
      if (!capabilities.languages.includes(language)) {
        return Promise.reject(new SpeechError('bad_request',
          `[pocketsphinx] language '${callOptions.language}' is not supported; ` +
            `use one of: ${capabilities.languages.join(', ')}`))
      }
      return pool.run(samples, callOptions.signal)
    },
    close: () => pool.close(),
  }
}
