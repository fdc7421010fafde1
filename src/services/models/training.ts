import { SpeechError } from '../../errors.js'
import type { BlobStore } from '../../store/blob/types.js'
import type { Db } from '../../store/db/database.js'
import type { ModelRepository } from '../../store/db/repositories/models.js'
import { createJobRunner, type JobRunnerOptions } from '../jobs/runner.js'
import type { AudioQualityEntry, DecodeAudio, DecodedAudio, ModelRecord, StoredSample } from '../../store/model-types.js'

/** One stored sample, decoded for the steps. `audio` is null when the stored bytes no longer decode. */
export interface TrainingSample {
  readonly index: number
  readonly filename: string
  readonly text: string
  /** The stored bytes (null when the blob is missing). */
  readonly bytes: Uint8Array | null
  readonly audio: DecodedAudio | null
}

/**
 * What the steps share. Steps run in order; each reads what earlier ones left (`audios`, `usable`) and
 * returns what it adds. A step throws a `SpeechError` to fail the model with that message.
 */
export interface TrainingContext {
  readonly model: ModelRecord
  readonly samples: readonly TrainingSample[]
  readonly signal: AbortSignal
  /** `quality.audios` so far (one entry per sample, in order). */
  readonly audios: readonly AudioQualityEntry[]
  /** Indexes of samples that passed every check so far; later steps should use only these. */
  readonly usable: readonly number[]
}

export interface TrainingOutput {
  readonly audios?: readonly AudioQualityEntry[]
  readonly usable?: readonly number[]
  readonly languages?: readonly string[]
  /** The voice profile (voice analysis); stored as JSON. */
  readonly profile?: unknown
  /** The model's samples with what training learnt (transcripts from ASR). */
  readonly samples?: readonly StoredSample[]
}

export interface TrainingStep {
  readonly name: string
  run(ctx: TrainingContext): Promise<TrainingOutput | void>
}

export interface TrainingOptions {
  readonly repo: ModelRepository
  readonly blobs: BlobStore
  readonly decode: DecodeAudio
  readonly steps: readonly TrainingStep[]
  /** The shared job table (src/services/jobs/runner.ts) and this node's settings for it. */
  readonly jobs: Omit<JobRunnerOptions, 'kind' | 'handler' | 'onGiveUp' | 'onError' | 'concurrency'>
  /** Models trained at the same time on this node; decoding and measuring are CPU-bound, so 1 on small machines. */
  readonly concurrency?: number
  /** A job running longer than this fails the model (a hung step must not leave it in `training`). Default 10 min. */
  readonly jobTimeoutMs?: number
  /** How long `close()` waits for aborted jobs to stop. Default 10 s. */
  readonly closeTimeoutMs?: number
  readonly now?: () => string
  readonly onError?: (err: unknown, modelId: string) => void
}

export interface TrainingQueue {
  /** Queues a model in state `created`; a model already queued or running is not queued twice. */
  enqueue(id: string): Promise<void>
  /** Queues a model inside the transaction that inserts it; `wake()` once it is committed. */
  enqueueIn(trx: Db, id: string): Promise<void>
  wake(): void
  /** Starts training queued models on this node (the server does, at start; CLI commands do not). */
  start(): void
  /** Resolves when nothing is queued or running (on any node sharing the database). */
  idle(): Promise<void>
  /** Stops taking jobs, aborts the running ones and hands them back (waits at most `closeTimeoutMs`). */
  close(): Promise<void>
}

/**
 * `created` → `training` → `trained` | `failed`, as `train` jobs on the database job queue: one node runs a
 * model at a time, a node that dies mid-job loses its lease and another node trains the model again
 * (training is deterministic and the samples are stored). A step's `SpeechError` or the time limit fails the
 * model; anything else (a crashed engine, the database gone) is retried with backoff, and fails the model
 * only when the last attempt fails. State changes are conditional on the current state, so a model deleted
 * meanwhile is left alone.
 */
export function createTrainingQueue(options: TrainingOptions): TrainingQueue {
  const now = options.now ?? (() => new Date().toISOString())
  const jobTimeoutMs = options.jobTimeoutMs ?? 10 * 60_000
  const runner = createJobRunner({
    ...options.jobs,
    kind: 'train',
    concurrency: options.concurrency ?? 1,
    handler: (id, _attempt, signal) => train(id, signal),
    onGiveUp: async (id) => {
      await options.repo.setState(id, { state: 'failed', stateReason: 'training failed: internal error' }, now(), ['created', 'training'])
    },
    onError: (err, id) => options.onError?.(err, id),
  })

  async function train(id: string, stop: AbortSignal): Promise<void> {
    // Another node's attempt may have died half-way and left the model in `training`; this node holds the job now.
    if (!(await options.repo.setState(id, { state: 'training', stateReason: '' }, now(), ['created', 'training']))) return
    const model = await options.repo.findById(id)
    if (!model) return
    const timeout = new AbortController()
    const timer = setTimeout(() => timeout.abort(new JobTimeout(jobTimeoutMs)), jobTimeoutMs)
    const signal = AbortSignal.any([stop, timeout.signal])
    try {
      // Raced with the signal, so a step that ignores it (hung I/O, a stuck engine) still frees the queue.
      const output = await Promise.race([runSteps(model, signal), rejectOnAbort(signal)])
      signal.throwIfAborted()
      const failed = output.usable.length === 0
      await options.repo.setState(
        id,
        {
          state: failed ? 'failed' : 'trained',
          stateReason: failed ? noUsableSample(output.audios) : '',
          quality: { ...model.quality, updated_at: now(), audios: output.audios },
          ...(output.languages ? { languages: output.languages } : {}),
          ...(output.profile !== undefined ? { profile: output.profile } : {}),
          ...(output.samples ? { samples: output.samples } : {}),
        },
        now(),
        ['training'],
      )
    } catch (err) {
      // Shutdown or a lost lease: the model stays in `training` and the job goes back to the queue.
      if (stop.aborted) throw err
      const timedOut = signal.reason instanceof JobTimeout
      if (!timedOut && !(err instanceof SpeechError)) throw err
      const reason = timedOut ? (signal.reason as JobTimeout).message : (err as SpeechError).message
      await options.repo.setState(id, { state: 'failed', stateReason: reason }, now(), ['training'])
    } finally {
      clearTimeout(timer)
    }
  }

  async function runSteps(model: ModelRecord, signal: AbortSignal) {
    const samples: TrainingSample[] = []
    for (const [index, s] of model.samples.entries()) {
      signal.throwIfAborted()
      const bytes = await options.blobs.get(s.key)
      // The decoder may take ownership of what it is given; the steps still need the stored bytes.
      const audio = bytes ? await options.decode(new Uint8Array(bytes), { name: s.filename }).catch(() => null) : null
      samples.push({ index, filename: s.filename, text: s.text, bytes, audio })
    }
    const usable = samples.map((s) => s.index)
    let ctx: TrainingContext = { model, samples, signal, audios: model.quality.audios, usable }
    let languages: readonly string[] | undefined
    let profile: unknown
    let stored: readonly StoredSample[] | undefined
    for (const step of options.steps) {
      signal.throwIfAborted()
      const out = (await step.run(ctx)) ?? {}
      ctx = { ...ctx, audios: out.audios ?? ctx.audios, usable: out.usable ?? ctx.usable }
      if (out.languages) languages = out.languages
      if (out.profile !== undefined) profile = out.profile
      if (out.samples) stored = out.samples
    }
    return { audios: ctx.audios, usable: ctx.usable, languages, profile, samples: stored }
  }

  return {
    enqueue: (id) => runner.add(id),
    enqueueIn: (trx, id) => runner.addIn(trx, id),
    wake: () => runner.wake(),
    start: () => runner.start(),
    idle: () => runner.idle(),
    close: () => runner.close(options.closeTimeoutMs ?? 10_000),
  }
}

function rejectOnAbort(signal: AbortSignal): Promise<never> {
  const aborted = new Promise<never>((_, reject) => {
    if (signal.aborted) reject(signal.reason)
    else signal.addEventListener('abort', () => reject(signal.reason), { once: true })
  })
  aborted.catch(() => {}) // the other side of the race may win; this one must not be an unhandled rejection
  return aborted
}

/** The abort reason of a job that ran past `jobTimeoutMs`. */
class JobTimeout extends Error {
  constructor(ms: number) {
    const limit = ms < 10_000 ? (ms / 1000).toFixed(1) : String(Math.round(ms / 1000))
    super(`training did not finish within ${limit} s; try again with fewer or shorter samples`)
  }
}

function noUsableSample(audios: readonly AudioQualityEntry[]): string {
  const why = audios.map((a) => `${a.filename}: ${a.quality_reason || 'not usable'}`).join('; ')
  return `No voice sample passed the quality check (${why}); upload a clear recording of one speaker`
}
