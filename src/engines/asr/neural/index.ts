import { SpeechError } from '../../../errors.js'
import type { Logger } from '../../../logger.js'
import { OnDemandPool } from '../../neural/on-demand-pool.js'
import { NeuralHost } from '../../neural/host.js'
import type { AsrRawResult } from '../../neural/protocol.js'
import type { ModelPackage } from '../../../models/types.js'
import type { AsrEngine, RecognizedWord } from '../types.js'
import { WHISPER_LANGUAGES } from './languages.js'
import { runtimeReason, type ModelChecks } from '../../neural/model-checks.js'
import { diedError, diedTooOften, PackageDeaths } from '../../neural/deaths.js'

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
  /** The package's check (model-checks.ts) and the identity of its files: requests wait for the verdict. */
  readonly checks?: ModelChecks
  readonly stamp?: string
}

export function createNeuralAsrEngine(pkg: ModelPackage, options: NeuralAsrOptions): AsrEngine {
  if (pkg.kind !== 'asr' || !pkg.asr) throw new SpeechError('bad_request', `${pkg.id} is not a runnable ASR model (${pkg.note ?? pkg.family})`)
  const config = pkg.asr
  const languages = pkg.languages.includes('auto') ? WHISPER_LANGUAGES : pkg.languages
  const { checks, stamp } = options
  const deaths = new PackageDeaths()
  const refused = (reason: string) => new SpeechError('not_ready',
    `[neural] ASR model package ${pkg.id} is broken, the runtime refused it: ${reason}; fix or replace its files (parla models list)`)
  /** A process that ended under a call: a 503 saying why; after repeated deaths the package is broken. */
  const died = async (host: NeuralHost): Promise<SpeechError> => {
    if (stamp !== undefined && deaths.died(pkg.id, stamp)) {
      await checks?.record(pkg.id, stamp, { ok: false, reason: diedTooOften(host.exitReason) })
    }
    return diedError(`ASR model package ${pkg.id}`, host.exitReason)
  }
  const hosts: OnDemandPool<NeuralHost> = new OnDemandPool<NeuralHost>({
    name: `asr ${pkg.id}`,
    size: options.processes,
    idleSec: options.idleSec ?? 0,
    create: async () => {
      const host = new NeuralHost()
      host.onExit((reason) => {
        // Logged here, once per process lost; the request it served answers 503 with the same reason.
        options.logger?.warn({ reason, package: pkg.id }, '[neural] an ASR runtime process ended; it is replaced')
        hosts.discard(host)
      })
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
      const verdict = await checks?.awaitVerdict(pkg.id, stamp, callOptions.signal)
      if (verdict && !verdict.ok) throw refused(verdict.reason)
      const host = await hosts.acquire(callOptions.signal, callOptions.deadline)
      try {
        await host.loadAsr(pkg.id, config, options.threads)
      } catch (err) {
        if (host.alive) hosts.release(host)
        else hosts.discard(host)
        if (!host.alive) throw await died(host)
        const reason = runtimeReason(err)
        if (stamp !== undefined) await checks?.record(pkg.id, stamp, { ok: false, reason })
        throw refused(reason)
      }
      const floats = samples instanceof Float32Array ? samples : Float32Array.from(samples, (v) => v / 32768)
      const { result, settled } = host.transcribe(pkg.id, floats, 16_000, callOptions.signal)
      // The process is busy until the runtime answers, even when the caller has gone.
      void settled.then(() => (host.alive ? hosts.release(host) : hosts.discard(host)))
      const raw = await result.catch(async (err: unknown) => {
        throw host.alive ? err : await died(host)
      })
      return toWords(raw, floats.length / 16_000)
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
