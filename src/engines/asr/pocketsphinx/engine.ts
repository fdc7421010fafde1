import { existsSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { SpeechError } from '../../../errors.js'
import type { AsrEngine, RecognizedWord } from '../types.js'
import { siblingWorkerUrl } from '../../../module-worker.js'
import { lmDictionary } from './dictionary.js'
import { DecoderPool } from './pool.js'
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
  openStream: NonNullable<AsrEngine['openStream']>
}

const SAMPLE_RATE = 16_000

/** `en`, `en-US`, `en_gb` → `en`. */
function baseLanguage(language: string): string {
  return language.toLowerCase().split(/[-_]/)[0] ?? ''
}

/**
 * Flags that bring another vocabulary than the model's LM (another LM or dictionary, a grammar, keyword
 * spotting): the dictionary cut to the LM's words would then drop words the search can output.
 */
const VOCABULARY_FLAGS = new Set(['-lm', '-lmctl', '-dict', '-jsgf', '-fsg', '-kws', '-keyphrase', '-allphone'])

function searchesModelLm(extraArgs: readonly string[] = []): boolean {
  return !extraArgs.some((arg) => VOCABULARY_FLAGS.has(arg))
}

/** In-process pocketsphinx (koffi → libpocketsphinx.so.3) in worker threads, one decoder per worker. */
export function createPocketsphinxEngine(options: PocketsphinxEngineOptions = {}): PocketsphinxEngine {
  const workers = Math.max(1, Math.floor(options.workers ?? availableParallelism()))
  const modelDir = options.modelDir ?? MODEL_DIR
  if (!existsSync(`${modelDir}/en-us.lm.bin`)) {
    const msg = `[pocketsphinx] no model in ${modelDir}; install the Debian package pocketsphinx-en-us`
    throw new SpeechError('unavailable', msg)
  }
  // Filtered here, once, before the workers start: each worker then only reads the (cached) result.
  const dictPath = searchesModelLm(options.extraArgs) ? lmDictionary(modelDir) : undefined
  const pool = new DecoderPool({
    size: workers,
    script: siblingWorkerUrl(import.meta.url, 'worker'),
    setup: {
      args: decoderArgs(options.preset ?? DEFAULT_PRESET, modelDir, options.extraArgs, dictPath),
      blockSamples: options.blockSamples ?? 4096,
    },
    ...(options.stopTimeoutMs !== undefined ? { stopTimeoutMs: options.stopTimeoutMs } : {}),
  })
  const capabilities = {
    languages: ['en'], sampleRate: SAMPLE_RATE, maxUtteranceSeconds: 20, parallelism: workers,
  }
  const checkLanguage = (requested: string): SpeechError | undefined => {
    if (capabilities.languages.includes(baseLanguage(requested))) return undefined
    return new SpeechError('bad_request',
      `[pocketsphinx] language '${requested}' is not supported; use one of: ${capabilities.languages.join(', ')}`)
  }
  return {
    id: 'pocketsphinx',
    capabilities,
    ready: () => pool.ready(),
    transcribe(samples, callOptions): Promise<readonly RecognizedWord[]> {
      const unsupported = checkLanguage(callOptions.language)
      return unsupported ? Promise.reject(unsupported) : pool.run(samples, callOptions.signal)
    },
    openStream(first, callOptions) {
      const unsupported = checkLanguage(callOptions.language)
      return unsupported ? Promise.reject(unsupported) : pool.openStream(first, callOptions.signal, callOptions.channel)
    },
    close: () => pool.close(),
  }
}
