import { resampleAll } from '../../../audio/resample.js'
import { SpeechError } from '../../../errors.js'
import { NeuralHost } from '../../neural/host.js'
import { discoverModels } from '../../../models/discover.js'
import type { ModelPackage } from '../../../models/types.js'
import { builtinVoices, type NeuralVoice } from './voices.js'
import { NO_NEURAL, type NeuralEngineOptions } from './settings.js'
import { timeWords } from './timing.js'
import { createPocketsphinxAligner } from '../../asr/pocketsphinx/index.js'
import type { WordAligner } from '../../asr/types.js'
import { concatSamples } from '../../../audio/signal.js'
import { referencePrompt } from './prompt.js'
import { OnDemandPool } from '../../neural/on-demand-pool.js'
import { kokoroLang } from './kokoro-lang.js'
import { filesStamp } from '../../neural/load-checks.js'
import { acquireModelChecks, loadTargetOf, runtimeReason } from '../../neural/model-checks.js'
import { diedError, diedTooOften, PackageDeaths } from '../../neural/deaths.js'
import type { SynthesisRequest, TtsEngine } from '../types.js'

/** Every neural voice leaves at this rate, whatever its model's rate (most publish 22.05 or 24 kHz). */
export const NEURAL_SAMPLE_RATE = 24_000

/**
 * The operator's neural TTS models (`modelsDir`), run by sherpa-onnx in a pool of host processes. Each
 * speaker of each package is a voice. Processes start on the first synthesis, so a server with no neural
 * voices, or one that never uses them, runs none.
 */
export async function createNeuralEngine(options: NeuralEngineOptions = {}): Promise<TtsEngine> {
  const settings = options.neural ?? NO_NEURAL
  const logger = options.logger
  const { checks, release: releaseChecks } = acquireModelChecks(settings.modelsDir, logger)
  const prepared = new Map<string, ReturnType<NonNullable<ModelPackage['prepare']>>>()
  /** A package's runtime configuration, made once (a Piper voice is copied into the cache) for its check and its calls. */
  const prepare = (pkg: ModelPackage) => {
    let config = prepared.get(pkg.id)
    if (!config) {
      config = pkg.prepare!()
      config.catch(() => prepared.delete(pkg.id))
      prepared.set(pkg.id, config)
    }
    return config
  }
  /** Loads every package found once in a check process (TTS, ASR and VAD alike), unless its files were checked. */
  const checkPackages = async (scan: VoiceScan): Promise<void> => {
    await checks.refresh()
    for (const { pkg, stamp } of scan.checkable) {
      void checks.check(pkg, stamp, loadTargetOf(pkg, () => prepare(pkg)))
    }
  }
  let found = await scanVoices(settings.modelsDir)
  await checkPackages(found)
  const voicesChanged: (() => void)[] = []
  checks.onSettled((id) => {
    if (found.stamps.has(id)) for (const listener of voicesChanged) listener()
  })
  const deaths = new PackageDeaths()
  /** The package each process last worked for, to say which one a dead process was using. */
  const using = new WeakMap<NeuralHost, string>()
  const hosts: OnDemandPool<NeuralHost> = new OnDemandPool<NeuralHost>({
    name: 'neural',
    size: settings.processes,
    idleSec: settings.idleSec ?? 0,
    create: async () => {
      const host = new NeuralHost()
      host.onExit((reason) => {
        // Logged here, once per process lost; the request it served answers 503 with the same reason.
        logger?.warn({ reason, package: using.get(host) }, '[neural] a TTS runtime process ended; it is replaced')
        hosts.discard(host)
      })
      return host
    },
    destroy: (host) => host.terminate(),
    onIdleStop: (stopped) => options.logger?.info({ processes: stopped, idleSec: settings.idleSec },
      '[neural] stopped the idle TTS processes and their models; the next synthesis starts them again'),
  })
  /** A process that ended while serving `pkg`: a 503 saying why; after repeated deaths the package is broken. */
  const died = async (host: NeuralHost, pkg: ModelPackage, stamp: string | undefined): Promise<SpeechError> => {
    if (stamp !== undefined && deaths.died(pkg.id, stamp)) {
      await checks.record(pkg.id, stamp, { ok: false, reason: diedTooOften(host.exitReason) })
    }
    return diedError(`model package ${pkg.id}`, host.exitReason)
  }
  // Word times by forced alignment (English voices); its decoder thread starts on the first use.
  let aligner: WordAligner | undefined

  return {
    id: 'neural',
    sampleRate: NEURAL_SAMPLE_RATE,
    capabilities: {
      get languages() {
        return [...new Set(found.voices.flatMap((v) => v.voice.languages))].sort()
      },
      wordTimings: 'estimated', rate: true, rateRange: [0.5, 2], pitch: false, streaming: 'incremental', sampling: [],
    },
    voices: () => found.voices.map((v) => {
      if (v.voice.unavailable) return v.voice
      const check = checks.state(v.pkg.id, found.stamps.get(v.pkg.id))
      if (check.state === 'broken') return { ...v.voice, unavailable: `model package ${v.pkg.id} is broken, the runtime refused it: ${check.reason}` }
      return check.state === 'checking' ? { ...v.voice, checking: true } : v.voice
    }),
    // Each model's own rate (its metadata's): the response resamples once, to what the request asks.
    sampleRateOf: (voice) => found.byId.get(voice)?.pkg.sampleRate ?? NEURAL_SAMPLE_RATE,
    onVoicesChanged: (listener) => void voicesChanged.push(listener),
    // Every process busy: the service then starts a balanced request with a short first phrase.
    saturated: () => hosts.saturated,
    load: () => hosts.load,
    async *synthesize(request: SynthesisRequest, options = {}) {
      const entry = found.byId.get(request.voice)
      if (!entry) throw new SpeechError('bad_request', `[neural] unknown voice "${request.voice}"; see voices() for the ids`)
      if (entry.voice.unavailable) throw new SpeechError('not_ready', `[neural] voice ${entry.voice.id}: ${entry.voice.unavailable}`)
      // A package still being checked: wait for the verdict (bounded) rather than load it a second time.
      const stamp = found.stamps.get(entry.pkg.id)
      const verdict = await checks.awaitVerdict(entry.pkg.id, stamp, options.signal)
      if (verdict && !verdict.ok) throw refusedError(entry.voice.id, entry.pkg.id, verdict.reason)
      if (request.text.trim() === '') return
      const { signal, deadline } = options
      const rate = entry.pkg.sampleRate ?? NEURAL_SAMPLE_RATE
      const loadConfig = await prepare(entry.pkg).catch((err: unknown) => {
        throw new SpeechError('engine_failed', `[neural] model ${entry.pkg.id} could not be prepared: ${err instanceof Error ? err.message : String(err)}`)
      })
      // A zero-shot voice speaks only as a clone: the reference audio and its transcript are its prompt.
      const reference = entry.voice.cloning ? await referencePrompt(request.references ?? [], signal) : undefined
      const host = await hosts.acquire(signal, deadline)
      using.set(host, entry.pkg.id)
      let held = true
      const free = () => {
        if (!held) return
        held = false
        if (host.alive) hosts.release(host)
        else hosts.discard(host)
      }
      try {
        const model = await host.load(entry.pkg.id, loadConfig, settings.threads).catch(async (err: unknown) => {
          if (!host.alive) throw await died(host, entry.pkg, stamp)
          // Its check passed but this load was refused: broken until its files change.
          const reason = runtimeReason(err)
          if (stamp !== undefined) await checks.record(entry.pkg.id, stamp, { ok: false, reason })
          throw refusedError(entry.voice.id, entry.pkg.id, reason)
        })
        const lang = entry.pkg.multiLanguage ? kokoroLang(request.language, entry.voice.languages, request.text) : undefined
        const pieces: Float32Array[] = []
        try {
          for await (const raw of host.synthesize({ key: entry.pkg.id, text: request.text, sid: entry.speaker, speed: request.rate ?? 1, ...(lang && { lang }), ...(reference && { reference }) }, signal)) {
            // The rate the metadata declared, which `sampleRateOf` told the caller; a model that disagrees is resampled.
            const samples = resampleAll(raw, model.sampleRate, rate)
            pieces.push(samples)
            // Without words nothing here reads the pieces again (they are kept for alignment only): the caller's.
            yield { samples, words: [], ...(options.words === false && { owned: true }) }
          }
        } catch (err) {
          // The runtime's front end found nothing it can say in this text: the input's fault, not the engine's.
          // A clone's transcript is the likely cause, worth a 422; a plain voice's chunk (an emoji) is silence.
          if (!host.alive) throw await died(host, entry.pkg, stamp)
          if (!(err instanceof SpeechError && err.code === 'engine_failed' && /produced no audio/.test(err.message))) throw err
          if (reference) throw noAudio(entry.pkg.id)
        }
        if (pieces.length === 0 && reference) throw noAudio(entry.pkg.id)
        // The runtime is done: the process takes the next call (the lookahead's next chunk, started on
        // `final`) while this call's audio is sent and its words are timed.
        free()
        yield { samples: new Float32Array(0), words: [], final: true }
        if (options.words === false) return
        const english = entry.voice.languages.some((l) => l.startsWith('en'))
        if (english) aligner ??= createPocketsphinxAligner()
        const words = await timeWords(request.text, concatSamples(pieces), rate, english ? aligner : undefined, signal)
        if (words.length > 0) yield { samples: new Float32Array(0), words }
      } finally {
        free()
      }
    },
    async rescan() {
      const next = await scanVoices(settings.modelsDir)
      const before = found
      const changedPackages = [...before.stamps].filter(([id, stamp]) => next.stamps.has(id) && next.stamps.get(id) !== stamp).map(([id]) => id)
      const voiceIds = (f: VoiceScan, packageIds?: readonly string[]) =>
        f.voices.filter((v) => !packageIds || packageIds.includes(v.pkg.id)).map((v) => v.voice.id)
      const changes = {
        added: voiceIds(next).filter((id) => !before.byId.has(id)),
        removed: voiceIds(before).filter((id) => !next.byId.has(id)),
        changed: voiceIds(next, changedPackages).filter((id) => before.byId.has(id)),
      }
      found = next
      const gone = [...before.stamps.keys()].filter((id) => !next.stamps.has(id))
      for (const id of [...gone, ...changedPackages]) prepared.delete(id)
      // The processes hold the old files' models: new calls get new processes, the old ones end after theirs.
      if (gone.length > 0 || changedPackages.length > 0) hosts.recycle()
      await checkPackages(next)
      return changes
    },
    async close() {
      // A package still being prepared (files copied into the cache) finishes first: nothing writes after close.
      await Promise.allSettled(prepared.values())
      releaseChecks()
      await Promise.all([hosts.close(), aligner?.close()])
    },
  }
}

interface VoiceScan {
  readonly voices: readonly NeuralVoice[]
  readonly byId: ReadonlyMap<string, NeuralVoice>
  /** Package id → what its files were when read (a package replaced under the same name reads differently). */
  readonly stamps: ReadonlyMap<string, string>
  /** Every package whose files pass Parla's own checks, TTS and ASR, for the runtime to load once. */
  readonly checkable: readonly { readonly pkg: ModelPackage; readonly stamp: string }[]
}

async function scanVoices(modelsDir: string): Promise<VoiceScan> {
  const { packages } = modelsDir ? await discoverModels(modelsDir) : { packages: [] }
  // Broken packages keep their voices, which answer 409 with the reason instead of an unknown-voice error.
  const runnable = packages.filter((p) => p.kind === 'tts' && (p.runnable || p.broken))
  const voices = builtinVoices(runnable)
  const stamps = new Map(await Promise.all(runnable.map(async (p) => [p.id, await filesStamp(p.path)] as const)))
  // ASR and VAD packages are checked here too: a broken one is reported when the folder is scanned.
  const asr = packages.filter((p) => p.runnable && (p.asr ?? p.vad))
  const asrStamps = await Promise.all(asr.map(async (pkg) => ({ pkg, stamp: await filesStamp(pkg.path) })))
  const checkable = [...runnable.filter((p) => p.runnable && p.prepare).map((pkg) => ({ pkg, stamp: stamps.get(pkg.id)! })), ...asrStamps]
  return { voices, byId: new Map(voices.map((v) => [v.voice.id, v])), stamps, checkable }
}

const refusedError = (voice: string, pkg: string, reason: string) => new SpeechError('not_ready',
  `[neural] voice ${voice}: model package ${pkg} is broken, the runtime refused it: ${reason}; fix or replace its files (parla models list)`)

const noAudio = (model: string) => new SpeechError('unusable_input',
  `[neural] ${model} found nothing it can say in the text or in the reference transcript (references[].text); send both in a language the model speaks`, { field: ['body', 'text'] })
