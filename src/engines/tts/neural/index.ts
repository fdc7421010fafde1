import { resampleAll } from '../../../audio/resample.js'
import { SpeechError } from '../../../errors.js'
import { abortReason } from '../../../abort.js'
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
import { CACHE_DIR } from '../../../models/detect.js'
import { kokoroLang } from './kokoro-lang.js'
import { filesStamp, LoadFailures, loadFailuresFile } from './load-failures.js'
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
  let found = await scanVoices(settings.modelsDir)
  const failures = new LoadFailures(settings.modelsDir ? loadFailuresFile(settings.modelsDir, CACHE_DIR) : '')
  await failures.load()
  const logger = options.logger
  // Packages (id and files) loaded at least once, and the first loads under way.
  const loaded = new Set<string>()
  const firstLoads = new Map<string, Promise<void>>()
  /** Waits for a first load under way; if none was and none succeeded yet, this call's load is the first: returns its `done`. */
  const awaitFirstLoad = async (key: string, signal?: AbortSignal): Promise<(() => void) | undefined> => {
    for (;;) {
      if (loaded.has(key)) return undefined
      const pending = firstLoads.get(key)
      if (!pending) break
      await untilSettledOrAborted(pending, signal)
      if (failuresKnown(key)) return undefined
    }
    let done!: () => void
    const pending = new Promise<void>((resolve) => (done = resolve))
    firstLoads.set(key, pending)
    let finished = false
    return () => {
      if (finished) return
      finished = true
      if (firstLoads.get(key) === pending) firstLoads.delete(key)
      done()
    }
  }
  const failuresKnown = (key: string) => {
    const [id, stamp] = key.split('\n') as [string, string]
    return failures.get(id, stamp) !== undefined
  }
  const hosts: OnDemandPool<NeuralHost> = new OnDemandPool<NeuralHost>({
    name: 'neural',
    size: settings.processes,
    idleSec: settings.idleSec ?? 0,
    create: async () => {
      const host = new NeuralHost()
      host.onExit(() => hosts.discard(host))
      return host
    },
    destroy: (host) => host.terminate(),
    onIdleStop: (stopped) => options.logger?.info({ processes: stopped, idleSec: settings.idleSec },
      '[neural] stopped the idle TTS processes and their models; the next synthesis starts them again'),
  })
  // Word times by forced alignment (English voices); its decoder thread starts on the first use.
  let aligner: WordAligner | undefined
  const prepared = new Map<string, ReturnType<NonNullable<ModelPackage['prepare']>>>()

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
      const refused = v.voice.unavailable ? undefined : failures.get(v.pkg.id, found.stamps.get(v.pkg.id))
      return refused === undefined ? v.voice : { ...v.voice, unavailable: `model package ${v.pkg.id} is broken, the runtime refused it: ${refused}` }
    }),
    // Every process busy: the service then starts a balanced request with a short first phrase.
    saturated: () => hosts.saturated,
    load: () => hosts.load,
    async *synthesize(request: SynthesisRequest, options = {}) {
      const entry = found.byId.get(request.voice)
      if (!entry) throw new SpeechError('bad_request', `[neural] unknown voice "${request.voice}"; see voices() for the ids`)
      if (entry.voice.unavailable) throw new SpeechError('not_ready', `[neural] voice ${entry.voice.id}: ${entry.voice.unavailable}`)
      const refused = failures.get(entry.pkg.id, found.stamps.get(entry.pkg.id))
      if (refused !== undefined) throw refusedError(entry.voice.id, entry.pkg.id, refused)
      if (request.text.trim() === '') return
      const { signal, deadline } = options
      let config = prepared.get(entry.pkg.id)
      if (!config) {
        config = entry.pkg.prepare!()
        config.catch(() => prepared.delete(entry.pkg.id))
        prepared.set(entry.pkg.id, config)
      }
      const loadConfig = await config.catch((err: unknown) => {
        throw new SpeechError('engine_failed', `[neural] model ${entry.pkg.id} could not be prepared: ${err instanceof Error ? err.message : String(err)}`)
      })
      // A zero-shot voice speaks only as a clone: the reference audio and its transcript are its prompt.
      const reference = entry.voice.cloning ? await referencePrompt(request.references ?? [], signal) : undefined
      // A package's first load decides whether the runtime takes its files: calls that come meanwhile wait for
      // it instead of loading the same files in other processes, and learn the verdict.
      const stamp = found.stamps.get(entry.pkg.id)
      const firstLoad = await awaitFirstLoad(`${entry.pkg.id}\n${stamp}`, signal)
      const refusedMeanwhile = failures.get(entry.pkg.id, stamp)
      if (refusedMeanwhile !== undefined) {
        firstLoad?.()
        throw refusedError(entry.voice.id, entry.pkg.id, refusedMeanwhile)
      }
      const host = await hosts.acquire(signal, deadline).catch((err: unknown) => {
        firstLoad?.()
        throw err
      })
      let held = true
      const free = () => {
        if (!held) return
        held = false
        if (host.alive) hosts.release(host)
        else hosts.discard(host)
      }
      try {
        const model = await host.load(entry.pkg.id, loadConfig, settings.threads).catch(async (err: unknown) => {
          // The runtime refused the files (or exited on them): the package stays refused until its files change.
          const reason = refusal(err)
          if (reason === undefined || stamp === undefined) throw err
          await failures.record(entry.pkg.id, stamp, reason)
          logger?.warn({ package: entry.pkg.id, reason }, '[neural] the runtime refused a model package; its voices answer 409 until its files change')
          throw refusedError(entry.voice.id, entry.pkg.id, reason)
        }).finally(() => firstLoad?.())
        loaded.add(`${entry.pkg.id}\n${stamp}`)
        const lang = entry.pkg.multiLanguage ? kokoroLang(request.language, entry.voice.languages, request.text) : undefined
        const pieces: Float32Array[] = []
        try {
          for await (const raw of host.synthesize({ key: entry.pkg.id, text: request.text, sid: entry.speaker, speed: request.rate ?? 1, ...(lang && { lang }), ...(reference && { reference }) }, signal)) {
            const samples = resampleAll(raw, model.sampleRate, NEURAL_SAMPLE_RATE)
            pieces.push(samples)
            yield { samples, words: [] }
          }
        } catch (err) {
          // The runtime's front end found nothing it can say in this text: the input's fault, not the engine's.
          // A clone's transcript is the likely cause, worth a 422; a plain voice's chunk (an emoji) is silence.
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
        const words = await timeWords(request.text, concatSamples(pieces), NEURAL_SAMPLE_RATE, english ? aligner : undefined, signal)
        if (words.length > 0) yield { samples: new Float32Array(0), words }
      } finally {
        firstLoad?.()
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
      return changes
    },
    async close() {
      // A package still being prepared (files copied into the cache) finishes first: nothing writes after close.
      await Promise.allSettled(prepared.values())
      await Promise.all([hosts.close(), aligner?.close()])
    },
  }
}

interface VoiceScan {
  readonly voices: readonly NeuralVoice[]
  readonly byId: ReadonlyMap<string, NeuralVoice>
  /** Package id → what its files were when read (a package replaced under the same name reads differently). */
  readonly stamps: ReadonlyMap<string, string>
}

async function scanVoices(modelsDir: string): Promise<VoiceScan> {
  const { packages } = modelsDir ? await discoverModels(modelsDir) : { packages: [] }
  // Broken packages keep their voices, which answer 409 with the reason instead of an unknown-voice error.
  const runnable = packages.filter((p) => p.kind === 'tts' && (p.runnable || p.broken))
  const voices = builtinVoices(runnable)
  const stamps = await Promise.all(runnable.map(async (p) => [p.id, await filesStamp(p.path)] as const))
  return { voices, byId: new Map(voices.map((v) => [v.voice.id, v])), stamps: new Map(stamps) }
}

/** Waits for `pending`, or rejects when the caller gives up first. */
function untilSettledOrAborted(pending: Promise<void>, signal?: AbortSignal): Promise<void> {
  if (!signal) return pending
  signal.throwIfAborted()
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => reject(abortReason(signal))
    signal.addEventListener('abort', onAbort, { once: true })
    void pending.finally(() => {
      signal.removeEventListener('abort', onAbort)
      resolve()
    })
  })
}

/** Why the runtime refused a package's files, or undefined when the failure was not the files' (a killed process). */
function refusal(err: unknown): string | undefined {
  const message = err instanceof Error ? err.message : String(err)
  const m = /could not load model [^:]+: (.*)$|runtime process ended \(exit code -?\d+\): (.*)$/s.exec(message)
  return m ? (m[1] ?? m[2] ?? '').trim() || message : undefined
}

const refusedError = (voice: string, pkg: string, reason: string) => new SpeechError('not_ready',
  `[neural] voice ${voice}: model package ${pkg} is broken, the runtime refused it: ${reason}; fix or replace its files (parla models list)`)

const noAudio = (model: string) => new SpeechError('unusable_input',
  `[neural] ${model} found nothing it can say in the text or in the reference transcript (references[].text); send both in a language the model speaks`, { field: ['body', 'text'] })
