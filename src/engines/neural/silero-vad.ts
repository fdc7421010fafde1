import { SpeechError } from '../../errors.js'
import type { Logger } from '../../logger.js'
import { findSileroVad } from '../../models/silero-vad.js'
import type { ModelPackage } from '../../models/types.js'
import { NeuralHost } from './host.js'
import { filesStamp } from './load-checks.js'
import { acquireModelChecks, type ModelChecks } from './model-checks.js'

/** One live session's voice activity: speech flags per Silero window (512 samples at 16 kHz, 32 ms). */
export interface SileroVadStream {
  /** Flags for the windows these samples complete (samples carry over to the next call). */
  accept(samples: Float32Array): Promise<readonly boolean[]>
  close(): void
}

export const SILERO_WINDOW = 512

export interface SileroVadOptions {
  readonly modelsDir: string
  readonly logger?: Logger
  /** Seconds the process stays up after its last stream closed. Default 60. */
  readonly idleSec?: number
}

/**
 * The Silero VAD installed in `modelsDir`, run by sherpa-onnx in one neural host process shared by every live
 * session (each session a stream with its own model state; a window costs well under a millisecond, so one
 * process serves many). The process runs apart from the TTS and ASR pools, whose processes are held by one
 * call at a time, starts with the first stream and stops when none has been open for `idleSec`. The folder
 * is looked at on each `open`, so installing or removing the model applies to the next session.
 */
export class SileroVad {
  readonly #options: SileroVadOptions
  readonly #checks: { readonly checks: ModelChecks; release(): void }
  #host: NeuralHost | undefined
  #streams = 0
  #nextStream = 1
  #idle: NodeJS.Timeout | undefined

  constructor(options: SileroVadOptions) {
    this.#options = options
    this.#checks = acquireModelChecks(options.modelsDir, options.logger)
  }

  /**
   * The installed package, or why there is none to use: `not_found` when none is installed, `not_ready` when
   * it is broken (its file, or the runtime refused it when it was checked).
   */
  async find(): Promise<{ readonly pkg: ModelPackage; readonly stamp: string }> {
    const pkg = this.#options.modelsDir ? await findSileroVad(this.#options.modelsDir) : undefined
    if (!pkg) throw new SpeechError('not_found', `[vad] no Silero VAD model in ${this.#options.modelsDir || 'modelsDir (not set)'}`)
    if (!pkg.runnable || !pkg.vad) throw new SpeechError('not_ready', `[vad] ${pkg.id} is broken: ${pkg.note}`)
    const stamp = await filesStamp(pkg.path)
    const { checks } = this.#checks
    if (checks.state(pkg.id, stamp).state === 'unchecked') await checks.refresh()
    const state = checks.state(pkg.id, stamp)
    if (state.state === 'broken') throw new SpeechError('not_ready', `[vad] ${pkg.id} is broken: the runtime refused it: ${state.reason}`)
    // Never loaded: checked in a throwaway process (so `parla models list` knows); this session tries it now.
    if (state.state === 'unchecked') void this.#checks.checks.check(pkg, stamp, { vad: pkg.vad })
    return { pkg, stamp }
  }

  /** Says in the log whether live sessions will find speech with an installed model (at startup). */
  async report(): Promise<void> {
    try {
      const { pkg } = await this.find()
      this.#options.logger?.info({ package: pkg.id }, '[vad] live transcription finds speech with the Silero VAD model')
    } catch (err) {
      if (err instanceof SpeechError && err.code === 'not_found') return
      this.#options.logger?.warn({ reason: err instanceof Error ? err.message : String(err) }, '[vad] the installed Silero VAD model cannot be used; live transcription uses libfvad until its file changes')
    }
  }

  /** A stream on the installed model; rejects as `find` does, or with `engine_failed` when the runtime fails. */
  async open(threshold: number): Promise<SileroVadStream> {
    const { pkg, stamp } = await this.find()
    clearTimeout(this.#idle)
    const host = this.#running()
    const key = `${pkg.id}@${stamp}`
    const stream = this.#nextStream++
    // Counted from now: the idle stop must not end the process while this stream's model loads.
    this.#streams++
    try {
      await host.loadVad(key, pkg.vad!)
      host.vadControl({ t: 'vad-open', stream, key, threshold })
    } catch (err) {
      this.#streams--
      this.#armIdleStop()
      throw err
    }
    let open = true
    return {
      accept: (samples) => host.vadAudio(stream, samples),
      close: () => {
        if (!open) return
        open = false
        this.#streams--
        if (host.alive) host.vadControl({ t: 'vad-close', stream })
        this.#armIdleStop()
      },
    }
  }

  /** The running process's id (tests end it as the machine would). */
  get pid(): number | undefined {
    return this.#host?.pid
  }

  close(): void {
    clearTimeout(this.#idle)
    this.#host?.terminate()
    this.#host = undefined
    this.#checks.release()
  }

  #running(): NeuralHost {
    if (this.#host?.alive) return this.#host
    const host = new NeuralHost()
    host.onExit((reason) => {
      // Its sessions' next audio fails and each falls back to libfvad, saying so in its log.
      this.#options.logger?.warn({ reason }, '[vad] the Silero VAD process ended; the next live session starts another')
      if (this.#host === host) this.#host = undefined
    })
    this.#host = host
    return host
  }

  #armIdleStop(): void {
    if (this.#streams > 0 || !this.#host) return
    clearTimeout(this.#idle)
    this.#idle = setTimeout(() => {
      if (this.#streams > 0) return
      this.#host?.terminate()
      this.#host = undefined
    }, (this.#options.idleSec ?? 60) * 1000)
    this.#idle.unref()
  }
}
