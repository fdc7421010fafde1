import { existsSync } from 'node:fs'
import { resampleAll } from '../../../audio/resample.js'
import { SpeechError } from '../../../errors.js'
import { siblingWorkerUrl } from '../../../module-worker.js'
import type { WordAligner } from '../types.js'
import { DecoderPool } from './pool.js'
import { alignerArgs, MODEL_DIR } from './settings.js'

export interface PocketsphinxAlignerOptions {
  /** Model directory laid out like Debian's pocketsphinx-en-us. */
  readonly modelDir?: string
  /** Decoder threads (default 1: aligning costs about 1 % of the audio's duration in CPU). */
  readonly workers?: number
}

const RATE = 16_000

/**
 * Forced alignment with pocketsphinx's US English model: each call decodes the audio with a grammar of
 * exactly its words, in worker threads that start on the first call. English dictionary words only; the
 * caller falls back to its own estimate when a call is rejected.
 */
export function createPocketsphinxAligner(options: PocketsphinxAlignerOptions = {}): WordAligner {
  const modelDir = options.modelDir ?? MODEL_DIR
  let pool: DecoderPool | undefined
  const getPool = () => {
    if (pool) return pool
    if (!existsSync(`${modelDir}/en-us/mdef`)) {
      throw new SpeechError('unavailable', `[pocketsphinx] no model in ${modelDir}; install the Debian package pocketsphinx-en-us`)
    }
    return (pool = new DecoderPool({
      size: Math.max(1, options.workers ?? 1),
      script: siblingWorkerUrl(import.meta.url, 'worker'),
      setup: { args: alignerArgs(modelDir), blockSamples: 4096 },
    }))
  }
  return {
    async align(samples, sampleRate, words, signal) {
      signal?.throwIfAborted()
      const found = await getPool().run(resampleAll(samples, sampleRate, RATE), signal, words)
      // The search ends on its best path even when the grammar's last word was not reached.
      if (found.length !== words.length || found.some((w, i) => w.word !== words[i])) {
        throw new SpeechError('unusable_input', `[pocketsphinx] the audio did not align with "${words.join(' ')}"`, { field: ['body', 'text'] })
      }
      return found.map(({ start, end }) => ({ start, end }))
    },
    close: async () => pool?.close(),
  }
}
