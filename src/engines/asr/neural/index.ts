import { SpeechError } from '../../../errors.js'
import type { Logger } from '../../../logger.js'
import { OnDemandPool } from '../../neural/on-demand-pool.js'
import { NeuralHost } from '../../neural/host.js'
import type { AsrRawResult } from '../../neural/protocol.js'
import type { ModelPackage } from '../../../models/types.js'
import type { AsrEngine, RecognizedWord } from '../types.js'
import { WHISPER_LANGUAGES } from './languages.js'

/**
 * An ASR model package (Whisper, Moonshine, NeMo CTC, … as sherpa-onnx publishes them) as an `AsrEngine`,
 * run in neural host processes like the TTS models. Languages follow the model: a multilingual Whisper takes
 * ~99 languages and detects when asked; others take what their package says.
 */
export interface NeuralAsrOptions {
  readonly processes: number
  readonly threads: number
  /** Seconds without work after which the processes and their model are stopped (0: never). */
  readonly idleSec?: number
  readonly logger?: Logger
}

export function createNeuralAsrEngine(pkg: ModelPackage, options: NeuralAsrOptions): AsrEngine {
  if (pkg.kind !== 'asr' || !pkg.asr) throw new SpeechError('bad_request', `${pkg.id} is not a runnable ASR model (${pkg.note ?? pkg.family})`)
  const config = pkg.asr
  const languages = pkg.languages.includes('auto') ? WHISPER_LANGUAGES : pkg.languages
  const hosts: OnDemandPool<NeuralHost> = new OnDemandPool<NeuralHost>({
    name: `asr ${pkg.id}`,
    size: options.processes,
    idleSec: options.idleSec ?? 0,
    create: async () => {
      const host = new NeuralHost()
      host.onExit(() => hosts.discard(host))
      await host.loadAsr(pkg.id, config, options.threads)
      return host
    },
    destroy: (host) => host.terminate(),
    onIdleStop: (stopped) => options.logger?.info({ processes: stopped, idleSec: options.idleSec, model: pkg.id },
      '[neural] stopped the idle ASR processes and their model; the next transcription starts them again'),
  })

  return {
    id: `neural-${pkg.id}`,
    capabilities: { languages, sampleRate: 16_000, maxUtteranceSeconds: pkg.family === 'whisper' ? 28 : 60, parallelism: options.processes },
    async transcribe(samples, callOptions) {
      const code = callOptions.language.toLowerCase()
      if (!languages.some((l) => l === code || l === code.split(/[-_]/)[0])) {
        throw new SpeechError('bad_request', `[neural] ${pkg.id} does not recognise language '${callOptions.language}'; use one of: ${languages.join(', ')}`)
      }
      const host = await hosts.acquire(callOptions.signal, callOptions.deadline)
      const floats = samples instanceof Float32Array ? samples : Float32Array.from(samples, (v) => v / 32768)
      const { result, settled } = host.transcribe(pkg.id, floats, 16_000, callOptions.signal)
      // The process is busy until the runtime answers, even when the caller has gone.
      void settled.then(() => (host.alive ? hosts.release(host) : hosts.discard(host)))
      return toWords(await result, floats.length / 16_000)
    },
    async close() {
      await hosts.close()
    },
  }
}

/** Tokens with their start times → words: a token starting with a space or `▁` starts a word. */
export function toWords(raw: AsrRawResult, seconds: number): RecognizedWord[] {
  const words: { word: string; start: number }[] = []
  raw.tokens.forEach((token, i) => {
    const start = raw.timestamps[i] ?? 0
    const fresh = /^[\s▁]/.test(token) || words.length === 0
    const text = token.replace(/^[\s▁]+/, '')
    if (fresh) words.push({ word: text, start })
    else words[words.length - 1]!.word += text
  })
  return words.filter((w) => w.word !== '').map((w, i, all) => ({
    word: w.word,
    start: w.start,
    // A word ends where the next begins (CTC and Whisper give start times only), at most a second later.
    end: Math.min(all[i + 1]?.start ?? seconds, w.start + 1, seconds),
    confidence: 1,
  }))
}
