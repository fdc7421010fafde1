import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { SpeechError } from '../../../errors.js'
import type { Logger } from '../../../logger.js'
import { OnDemandPool } from '../../neural/on-demand-pool.js'
import { NeuralHost } from '../../neural/host.js'
import type { AsrLoadConfig } from '../../neural/protocol.js'
import { CACHE_DIR } from '../../../models/detect.js'
import type { ModelPackage } from '../../../models/types.js'
import type { AsrEngine, Recognition, RecognizedWord } from '../types.js'
import { openOnlineStream, transcribeOnline, type OnlineHosts } from './online.js'
import { toWords } from './words.js'
import { fromHexTokens, writeHexTokens } from './byte-tokens.js'
import { runtimeReason, type ModelChecks } from '../../neural/model-checks.js'
import { diedError, diedTooOften, PackageDeaths } from '../../neural/deaths.js'

/**
 * An ASR model package (Whisper, Moonshine, NeMo CTC, … as sherpa-onnx publishes them) as an `AsrEngine`,
 * run in neural host processes like the TTS models. Languages follow the model: a multilingual Whisper takes
 * the codes its metadata lists, detects when given `auto`, and reports what it heard; others take what their
 * package says. Whisper writes its own text (casing, punctuation), which is returned as it is. Streaming models
 * (online transducers) also decode live utterances (`openStream`) as their audio arrives.
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
  const whisper = pkg.family === 'whisper'
  const detects = whisper && pkg.multiLanguage === true
  const languages = pkg.languages
  let prepared: Promise<AsrLoadConfig> | undefined
  // Whisper's tokens go to the runtime spelt in hexadecimal (byte-tokens.ts), in Parla's cache next to the package.
  const config = () => (prepared ??= whisper ? hexTokens(pkg, pkg.asr!) : Promise.resolve(pkg.asr!))
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

  /** The model's code for a requested language ('' to detect); never one the model lacks (the runtime ends its process on one). */
  const languageOf = (requested: string): string => {
    const code = requested.toLowerCase()
    const base = code.split(/[-_]/)[0]!
    const language = code === 'auto' && detects ? '' : languages.find((l) => l === code) ?? languages.find((l) => l === base)
    if (language === undefined) {
      throw new SpeechError('bad_request', `[neural] ${pkg.id} does not recognise language '${requested}'; use one of: ${languages.join(', ')}`)
    }
    return language
  }
  const free = (host: NeuralHost) => (host.alive ? hosts.release(host) : hosts.discard(host))
  /** A process with the model loaded, once the package's check has passed; the caller releases it. */
  const loadedHost = async (signal?: AbortSignal, deadline?: number): Promise<NeuralHost> => {
    const verdict = await checks?.awaitVerdict(pkg.id, stamp, signal)
    if (verdict && !verdict.ok) throw refused(verdict.reason)
    const loadConfig = await config()
    const host = await hosts.acquire(signal, deadline)
    try {
      await host.loadAsr(pkg.id, loadConfig, options.threads)
    } catch (err) {
      free(host)
      if (!host.alive) throw await died(host)
      const reason = runtimeReason(err)
      if (stamp !== undefined) await checks?.record(pkg.id, stamp, { ok: false, reason })
      throw refused(reason)
    }
    return host
  }
  const capabilities = { languages, sampleRate: 16_000, maxUtteranceSeconds: whisper ? 28 : 60, parallelism: options.processes, ...(detects && { detectsLanguage: true }) }
  const close = () => hosts.close()
  // One process with the model loaded (a process start and the model's load: seconds for a large model), so the
  // first upload or live turn after start does not wait for it; more processes start when requests need them.
  const ready = async () => free(await loadedHost())

  if (pkg.asr.online) {
    // A streaming model: live utterances decode as their audio comes; a whole recording is one utterance.
    const online: OnlineHosts = { acquire: loadedHost, free, died }
    return {
      id: `neural-${pkg.id}`,
      capabilities,
      async transcribe(samples, callOptions) {
        languageOf(callOptions.language)
        const floats = samples instanceof Float32Array ? samples : Float32Array.from(samples, (v) => v / 32768)
        return transcribeOnline(pkg.id, online, floats, callOptions)
      },
      async openStream(first, callOptions) {
        languageOf(callOptions.language)
        return openOnlineStream(pkg.id, online, first, callOptions)
      },
      ready,
      close,
    }
  }

  return {
    id: `neural-${pkg.id}`,
    capabilities,
    async transcribe(samples, callOptions) {
      const language = languageOf(callOptions.language)
      const host = await loadedHost(callOptions.signal, callOptions.deadline)
      const floats = samples instanceof Float32Array ? samples : Float32Array.from(samples, (v) => v / 32768)
      const { result, settled } = host.transcribe(pkg.id, floats, 16_000, callOptions.signal, detects ? language : undefined)
      // The process is busy until the runtime answers, even when the caller has gone.
      void settled.then(() => free(host))
      const raw = await result.catch(async (err: unknown) => {
        throw host.alive ? err : await died(host)
      })
      const seconds = floats.length / 16_000
      if (!whisper) return toWords(raw, seconds)
      const decoded = fromHexTokens(raw.tokens)
      const words: Recognition = Object.assign(spreadWords(toWords({ ...raw, tokens: decoded.tokens }, seconds), seconds), {
        text: decoded.text.trim(),
        ...(detects && { language: raw.lang || language || languages[0]! }),
      })
      return words
    },
    ready,
    close,
  }
}

async function hexTokens(pkg: ModelPackage, asr: AsrLoadConfig): Promise<AsrLoadConfig> {
  const name = `${pkg.id}-tokens.txt`
  const cached = join(dirname(pkg.path), CACHE_DIR, 'whisper-tokens', name)
  // A models folder mounted read-only still works: the copy then lives in the temporary folder.
  const fallback = join(tmpdir(), `parla-whisper-tokens-${process.getuid?.() ?? 'user'}`, name)
  const target = await writeHexTokens(asr.tokens, cached).then(() => cached, async () => {
    await writeHexTokens(asr.tokens, fallback)
    return fallback
  })
  return { ...asr, tokens: target }
}

/**
 * Whisper as sherpa-onnx runs it gives no token times. The utterance is one stretch of speech the VAD found
 * (between pauses), so its words are laid over it in order, each taking a share of its length in proportion
 * to its characters: every word lies inside the speech it was heard in, and the times are estimates within
 * that stretch, not measured word boundaries.
 */
export function spreadWords(words: readonly RecognizedWord[], seconds: number): RecognizedWord[] {
  const total = words.reduce((n, w) => n + Math.max(1, [...w.word].length), 0)
  let at = 0
  return words.map((w) => {
    const start = (at / total) * seconds
    at += Math.max(1, [...w.word].length)
    return { ...w, start: round3(start), end: round3((at / total) * seconds) }
  })
}

const round3 = (x: number) => Math.round(x * 1000) / 1000
