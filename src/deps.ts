import { resolve } from 'node:path'
import type { Config } from './config/schema.js'
import { dialectFor, isPostgresUrl, openDatabase, type Db } from './store/db/database.js'
import { createKeyRepository, type KeyRepository } from './store/db/repositories/keys.js'
import { createLocalChangeFeed, createPostgresChangeFeed } from './store/db/changes.js'
import { openBlobStore } from './store/blob/from-config.js'
import { createMemoryBlobStore } from './store/blob/memory.js'
import type { BlobStore } from './store/blob/types.js'
import { decodeAudio } from './audio/decode.js'
import { createModelService, type ModelService, type ModelServiceOptions } from './services/models/service.js'
import { SpeechError } from './errors.js'
import type { TtsService } from './services/tts/service.js'
import { createTtsStack, type TtsStack } from './services/tts/stack.js'
import { loadPronunciations } from './services/tts/pronunciations-file.js'
import type { ModelLookup } from './services/tts/voice-resolver.js'
import type { VoiceProfile } from './voices/types.js'
import { createAsrService, type AsrService } from './services/asr/service.js'
import { transcribe } from './asr/transcribe.js'
import { createVoiceAliases, type VoiceAliases } from './services/models/voice-aliases.js'
import { createQuotaAllowance, type AllowanceSource } from './services/account/allowance.js'
import { createQuotaService, type QuotaOptions, type QuotaService } from './services/account/quota.js'
import { createQuotaRepository } from './store/db/repositories/quota.js'
import { neuralSettingsFrom } from './engines/tts/neural/settings.js'
import { asrEngineFromSettings } from './engines/asr/neural/from-config.js'
import { SileroVad } from './engines/neural/silero-vad.js'
import { sileroSource } from './services/asr/live/silero-detector.js'
import { FVAD_SOURCE } from './services/asr/live/fvad-detector.js'
import { referenceClips } from './services/models/reference-clips.js'
import type { AudioEncoder, AudioFormat } from './audio/types.js'
import type { AsrEngine } from './engines/asr/types.js'
import type { TtsEngineRegistry } from './engines/tts/registry.js'
import { createLogger, droppedLogLines, type Logger } from './logger.js'
import { createReadiness, type Readiness } from './readiness.js'
import { availableParallelism } from 'node:os'
import { createAdmission, type Admission } from './services/admission/admission.js'
import { createEngineCost, workPerChar } from './services/admission/engine-cost.js'
import { admissionLimits, coresLeft, shortWorkLimits } from './services/admission/limits.js'
import { createOverloadShare } from './services/admission/overload.js'
import { createMetrics, type Metrics } from './services/metrics/metrics.js'

/** Everything the routes use, wired once from the config. Tests build it with in-memory stores. */
export interface Deps {
  readonly config: Config
  /** The one logger; Fastify's request loggers are its children. */
  readonly logger: Logger
  /** Warm-up still running and whether shutdown began (`/readyz`). */
  readonly readiness: Readiness
  readonly db: Db
  readonly blobs: BlobStore
  readonly keys: KeyRepository
  /** Voice models (`/model`) and their training queue. */
  readonly models: ModelService
  /** Voice ids Parla does not have → models it has (`voiceAliases` plus the shipped ones). */
  readonly aliases: VoiceAliases
  /** Text to speech on every surface (HTTP, SSE, WebSocket). */
  readonly tts: TtsService
  /** Engines and built-in voices behind `tts`. */
  readonly speech: TtsStack
  /** Speech to text (`/v1/asr`, `parla transcribe`). */
  readonly asr: AsrService
  /** What each account may still use (`/wallet/self/*`); unlimited until quotas are configured. */
  readonly allowance: AllowanceSource
  /** How many streams this node speaks at once; the rest wait briefly, then get 503 (`maxStreams`). */
  readonly admission: Admission
  /** Prometheus metrics (`/metrics`); quota code counts its refusals in `metrics.quotaRejections`. */
  readonly metrics: Metrics
  /** Per-account limits and per-key usage, counted in the database (every node); see docs/quotas.md. */
  readonly quota: QuotaService
  close(): Promise<void>
}

export interface DepsOverrides {
  /** Use an in-memory SQLite database and blob store (tests). */
  readonly inMemory?: boolean
  /** Training knobs for tests: extra steps (e.g. one that stalls) and time limits. */
  readonly training?: Pick<ModelServiceOptions, 'extraSteps' | 'trainingTimeoutMs' | 'closeTimeoutMs'>
  /** TTS engines instead of the built-in registry (plumbing tests use test/support/fake-tts-engines.ts). */
  readonly ttsEngines?: TtsEngineRegistry
  /** The speech recognizer instead of pocketsphinx. */
  readonly asrEngine?: () => AsrEngine
  /** The blob store instead of the one `inMemory`/`dataDir` selects. */
  readonly blobs?: BlobStore
  /** Encoders replacing the built-in ones, by format. */
  readonly encoders?: Partial<Record<AudioFormat, AudioEncoder>>
  /** Default: a pino logger at `config.logLevel` on stdout. */
  readonly logger?: Logger
  /** Quota clock and lease length (tests pin the clock to a minute and month of their choosing). */
  readonly quota?: Pick<QuotaOptions, 'now' | 'leaseMs'>
}

export async function createDeps(config: Config, overrides: DepsOverrides = {}): Promise<Deps> {
  const dataDir = resolve(config.dataDir)
  const logger = overrides.logger ?? createLogger(config.logLevel)
  // Before anything is opened: a wrong asrEngine or pronunciations file stops startup with nothing to clean up.
  const neural = neuralSettingsFrom(config, dataDir)
  const asrEngine = await asrEngineFromSettings(config.asrEngine, neural, config.asrWorkers, logger)
  const pronunciations = loadPronunciations(config.pronunciations)
  if (pronunciations.size > 0) logger.info({ file: config.pronunciations, entries: pronunciations.size }, 'pronunciations loaded')
  const databaseUrl = overrides.inMemory ? 'sqlite::memory:' : config.databaseUrl
  const onIdleError = (err: Error) => logger.warn({ err }, '[database] a pooled connection failed; it is replaced')
  const db = await openDatabase(dialectFor(databaseUrl, dataDir, { onIdleError, poolSize: config.databasePoolSize }))
  const blobs =
    overrides.blobs ??
    (overrides.inMemory ? createMemoryBlobStore() : await openBlobStore(config.blobStore, databaseUrl, { db, dataDir }))
  const changes = isPostgresUrl(databaseUrl) ? await createPostgresChangeFeed(databaseUrl, onIdleError) : createLocalChangeFeed()
  const keys = createKeyRepository(db, changes)
  // Live transcription finds speech with Silero VAD when its model is installed in modelsDir, else libfvad.
  const sileroVad = new SileroVad({ modelsDir: neural.modelsDir, logger })
  void sileroVad.report()
  const asr = createAsrService({
    workers: config.asrWorkers,
    voiceDetectors: [sileroSource(sileroVad), FVAD_SOURCE],
    logger,
    ...(asrEngine && { engine: () => asrEngine }),
    ...(config.asrConcurrency > 0 && { concurrency: config.asrConcurrency }),
    queueLength: config.asrQueueLength,
    waitMs: config.asrWaitSec * 1000,
    ...(overrides.asrEngine && { engine: overrides.asrEngine }),
  })
  const models = createModelService({
    db,
    blobs,
    decode: decodeAudio,
    minSampleSeconds: config.minSampleSeconds,
    maxSampleSeconds: config.maxSampleSeconds,
    // Voice samples sent without `texts` get an English transcript (pocketsphinx) for the speaking rate.
    transcribe: async (audio, signal) => (await transcribe(asr.engine, audio, { language: 'en', timestamps: false, signal })).text,
    onError: (err, context) => logger.error({ err, context }, `[models] ${context} failed`),
    jobs: { shared: isPostgresUrl(databaseUrl), leaseMs: config.jobLeaseSec * 1000 },
    ...(isPostgresUrl(databaseUrl) && { changes }),
    ...overrides.training,
  })
  const quota = createQuotaService({
    repo: createQuotaRepository(db, isPostgresUrl(databaseUrl) ? changes : undefined),
    logger,
    defaults: {
      concurrency: config.quotaConcurrency,
      requestsPerMinute: config.quotaRequestsPerMinute,
      charactersPerMonth: config.quotaCharactersPerMonth,
      audioSecondsPerMonth: config.quotaAudioSecondsPerMonth,
    },
    leaseMs: config.quotaLeaseSec * 1000,
    ...overrides.quota,
  })
  const aliases = createVoiceAliases(config.voiceAliases)
  const lookupModel: ModelLookup = async (id, principal) => {
    try {
      const m = await models.get(principal.accountId, id)
      return {
        id: m.id, state: m.state, stateReason: m.stateReason, builtinVoice: m.builtinVoice, profile: (m.profile as VoiceProfile | null) ?? null,
        references: () => referenceClips(m.samples, blobs),
      }
    } catch (err) {
      if (err instanceof SpeechError && err.code === 'not_found') return null
      throw err
    }
  }
  let engines = (): ReturnType<TtsStack['engines']['started']> => []
  const cost = createEngineCost(() => engines())
  const speech = createTtsStack({
    onAudio: cost.record,
    config,
    pronunciations,
    lookupModel,
    logger,
    aliases,
    ...(overrides.ttsEngines && { engines: overrides.ttsEngines }),
    ...(overrides.encoders && { encoders: overrides.encoders }),
  })
  engines = () => speech.engines.started()
  const { admission, metrics } = operations(config, db, asr, cost, engines)
  quota.onRejected(({ limit }) => metrics.quotaRejections.inc({ limit }))
  asr.onRejected(() => metrics.asrRejections.inc())
  return {
    config,
    logger,
    readiness: createReadiness(),
    admission,
    metrics,
    db,
    blobs,
    keys,
    models,
    aliases,
    tts: speech.tts,
    speech,
    asr,
    allowance: createQuotaAllowance(db, quota),
    quota,
    async close() {
      // Training first: its steps use ASR.
      await models.close()
      await asr.close()
      sileroVad.close()
      await speech.close()
      await quota.close()
      await blobs.close?.()
      await changes.close()
      await db.destroy()
    },
  }
}

/** Admission control and metrics, which read the engines, the ASR line and the models table. */
function operations(config: Config, db: Db, asr: AsrService, cost: ReturnType<typeof createEngineCost>, engines: () => ReturnType<TtsStack['engines']['started']>) {
  const settings = { maxStreams: config.maxStreams, maxStartingStreams: config.maxStartingStreams, cores: availableParallelism() }
  let metrics: Metrics | undefined
  const overload = createOverloadShare()
  const shortWork = () => shortWorkLimits(coresLeft(settings.cores, asr.load.active), settings.cores, config.admissionWaitSec, overload.share())
  const admission = createAdmission({
    // Each transcription under way keeps a decoder, and so a core, busy: speech plans with the cores left.
    limits: () => admissionLimits({ ...settings, cores: coresLeft(settings.cores, asr.load.active) }, cost.perAudioSec(), overload.share()),
    queueLength: config.admissionQueueLength,
    waitMs: config.admissionWaitSec * 1000,
    secPerChar: () => workPerChar(cost.perAudioSec()),
    // Short work served beyond the limits, on the cores left (the budget cut like the limits, see shortWorkLimits).
    shortWorkSec: () => shortWork().budgetSec,
    shortWorkCapSec: () => shortWork().capSec,
    onReject: (surface) => metrics?.admissionRejections.inc({ surface }),
    onFirstAudio: (surface, sec) => metrics?.firstAudio.observe({ surface }, sec),
    onFellBehind: (surface) => {
      overload.fellBehind()
      metrics?.streamsBehind.inc({ surface })
    },
  })
  metrics = createMetrics({
    engines,
    admission,
    realTimeFactor: cost.byEngine,
    asr: () => asr.load,
    logLinesDropped: droppedLogLines,
    modelStates: async () => {
      const rows = await db.selectFrom('models').select(['state', (eb) => eb.fn.countAll<number>().as('n')]).groupBy('state').execute()
      return new Map(rows.map((r) => [r.state, Number(r.n)]))
    },
  })
  return { admission, metrics }
}
