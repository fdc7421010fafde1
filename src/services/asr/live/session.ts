import { VAD_FRAME } from '../../../asr/frame-vad.js'
import { isAbortError, SpeechError, toSpeechError } from '../../../errors.js'
import { EventChannel } from './event-channel.js'
import { DECODE_RATE, LiveInput } from './input.js'
import { FVAD_SOURCE } from './fvad-detector.js'
import { TurnDetector } from './turn-detector.js'
import type { LiveEvent, LiveSessionOptions } from './types.js'
import { LiveTurn } from './turn.js'
import { openVoiceDetection, type OpenedDetection, type VoiceDetector } from './voice-detector.js'

export type { LiveEvent, LiveSessionOptions } from './types.js'

type Work = { readonly kind: 'audio'; readonly pcm: Int16Array } | { readonly kind: 'commit' | 'clear' | 'end' }

const DEFAULT_BACKLOG_SEC = 15

/**
 * One live transcription: audio in, turns out. Audio is resampled once as it arrives, then handled in order
 * at the decoder's pace (a client sending faster than real time waits in a bounded backlog): 10 ms frames
 * through the VAD and turn detector, each turn's audio to the engine as it comes, partials while it speaks
 * and a final with word times when it ends (detected silence or the client's `commit`).
 */
export class LiveSession {
  readonly #options: LiveSessionOptions
  readonly #input: LiveInput
  readonly #events = new EventChannel<LiveEvent>()
  readonly #work: Work[] = []
  readonly #detector: TurnDetector | undefined
  readonly #maxTurnSamples: number
  #vad: Promise<VoiceDetector & OpenedDetection> | undefined
  /** Frames before speech, kept for the turn's padding. */
  #recent: Int16Array[] = []
  #recentLimit = 0
  #leftover = new Int16Array(0)
  #clock = 0
  #backlog = 0
  #received = 0
  #turn: LiveTurn | undefined
  /** The last recognised turn's audio: the same speaker and microphone, for the next turn's decoder. */
  #channel: Int16Array | undefined
  #turnFailed = false
  #turns = 0
  #pumping = false
  #closed = false
  #idle: NodeJS.Timeout | undefined

  constructor(options: LiveSessionOptions) {
    this.#options = options
    this.#input = new LiveInput(options.inputRate)
    this.#maxTurnSamples = Math.max(5, options.engine.capabilities.maxUtteranceSeconds) * DECODE_RATE
    if (options.turns) {
      this.#detector = new TurnDetector(options.turns)
      this.#vad = openVoiceDetection(options.detectors ?? [FVAD_SOURCE], options.turns, options.log)
      const turns = options.turns
      this.#vad.then((vad) => this.#logStart(vad.name, turns, vad.skipped), () => {})
      this.#recentLimit = Math.round(options.turns.prefixPaddingMs / 10) + TurnDetector.LEAD_FRAMES
    } else this.#logStart(null)
    this.#touch()
  }

  /** Everything the session says, in order; ends after `end()` has been worked through, or on `close()`. */
  events(): AsyncIterable<LiveEvent> {
    return this.#events
  }

  /** Seconds of audio received so far (what the session is charged). */
  get receivedSec(): number {
    return this.#received / DECODE_RATE
  }

  /** Adds a frame of 16-bit PCM; throws `bad_request` (odd length) or `rate_limited` (backlog full). */
  append(bytes: Uint8Array): void {
    this.#touch()
    const pcm = this.#input.push(bytes)
    const limit = (this.#options.maxBacklogSec ?? DEFAULT_BACKLOG_SEC) * DECODE_RATE
    if (this.#backlog + pcm.length > limit) {
      throw new SpeechError('rate_limited', `audio is arriving faster than it can be recognised: ${(this.#backlog / DECODE_RATE).toFixed(1)} s wait for the decoder (limit ${limit / DECODE_RATE} s); send it at real-time pace`)
    }
    this.#received += pcm.length
    this.#backlog += pcm.length
    this.#enqueue({ kind: 'audio', pcm })
  }

  /** Ends the current turn now (after the audio already sent). */
  commit(): void {
    this.#enqueue({ kind: 'commit' })
  }

  /** Drops the current turn and its audio. */
  clear(): void {
    this.#enqueue({ kind: 'clear' })
  }

  /** No more audio: the turn in progress is committed, then the events end. */
  end(): void {
    this.#enqueue({ kind: 'end' })
  }

  /** Stops at once: the turn in progress is dropped, the events end. */
  close(): void {
    if (this.#closed) return
    this.#closed = true
    clearTimeout(this.#idle)
    this.#work.length = 0
    this.#turn?.cancel()
    this.#turn = undefined
    this.#events.end()
    void this.#vad?.then((vad) => vad.close(), () => {})
  }

  #touch(): void {
    clearTimeout(this.#idle)
    const ms = this.#options.idleMs
    if (ms !== undefined && !this.#closed) this.#idle = setTimeout(() => this.#events.push({ type: 'idle' }), ms)
  }

  #enqueue(work: Work): void {
    if (this.#closed) return
    this.#work.push(work)
    void this.#pump()
  }

  async #pump(): Promise<void> {
    if (this.#pumping) return
    this.#pumping = true
    try {
      for (let work = this.#work.shift(); work && !this.#closed; work = this.#work.shift()) {
        if (work.kind === 'audio') {
          await this.#audio(work.pcm)
          this.#backlog -= work.pcm.length
        } else if (work.kind === 'commit') await this.#commit(true)
        else if (work.kind === 'clear') this.#clear()
        else {
          if (this.#turn) await this.#commit(false)
          this.close()
        }
      }
    } catch (err) {
      this.#events.push({ type: 'error', error: toSpeechError(err) })
      this.close()
    } finally {
      this.#pumping = false
    }
  }

  async #audio(pcm: Int16Array): Promise<void> {
    if (!this.#detector) {
      this.#turn ??= this.#newTurn(this.#clock / DECODE_RATE)
      this.#clock += pcm.length
      await this.#toTurn(pcm)
      if (this.#turn && this.#turn.seconds * DECODE_RATE >= this.#maxTurnSamples) await this.#commit(false)
      return
    }
    const vad = await this.#vad!
    let samples = pcm
    if (this.#leftover.length > 0) {
      samples = new Int16Array(this.#leftover.length + pcm.length)
      samples.set(this.#leftover)
      samples.set(pcm, this.#leftover.length)
    }
    const whole = samples.length - (samples.length % VAD_FRAME)
    this.#leftover = samples.slice(whole)
    const voiced = await vad.detect(samples.subarray(0, whole))
    for (let i = 0; i < voiced.length && !this.#closed; i++) {
      this.#clock += VAD_FRAME
      await this.#frame(samples.slice(i * VAD_FRAME, (i + 1) * VAD_FRAME), voiced[i]!)
    }
  }

  async #frame(frame: Int16Array, voiced: boolean): Promise<void> {
    const step = this.#detector!.push(voiced)
    if (!this.#turn) {
      this.#recent.push(frame)
      if (this.#recent.length > this.#recentLimit) this.#recent.shift()
      if (step !== 'start') return
      const lead = this.#recent
      this.#recent = []
      const turn = this.#newTurn((this.#clock - lead.length * VAD_FRAME) / DECODE_RATE)
      this.#events.push({ type: 'speech_started', turn: turn.id, atSec: turn.startSec })
      for (const f of lead) await this.#toTurn(f)
      return
    }
    if (step === 'resume') this.#turn.resume()
    await this.#toTurn(frame)
    if (step === 'pause') await this.#speculate()
    const tooLong = this.#turn.seconds * DECODE_RATE >= this.#maxTurnSamples
    if (step === 'end' || tooLong) {
      this.#events.push({ type: 'speech_stopped', turn: this.#turn.id, atSec: this.#clock / DECODE_RATE })
      this.#detector!.reset()
      await this.#commit(false)
    }
  }

  #logStart(vad: string | null, turns?: LiveSessionOptions['turns'], skipped?: OpenedDetection['skipped']): void {
    const { inputRate, language } = this.#options
    this.#options.log?.info({ vad, ...turns, ...(skipped !== undefined && skipped.length > 0 && { vadSkipped: skipped }), inputRate, language }, 'live transcription session started')
  }

  #newTurn(startSec: number): LiveTurn {
    this.#turnFailed = false
    const id = `item_${String(++this.#turns).padStart(4, '0')}`
    const turn = new LiveTurn(id, startSec, {
      engine: this.#options.engine,
      language: this.#options.language,
      ...(this.#channel && { channel: this.#channel }),
      hold: (signal) => this.#options.hold(signal),
      partial: (p) => {
        if (this.#turn !== turn) return
        const delta = p.added.length === 0 ? '' : (p.stable.length > p.added.length ? ' ' : '') + p.added.join(' ')
        this.#events.push({ type: 'partial', turn: id, stable: p.stable.join(' '), tail: p.tail.join(' '), delta })
      },
    })
    this.#turn = turn
    return turn
  }

  async #toTurn(pcm: Int16Array): Promise<void> {
    const turn = this.#turn
    if (!turn || this.#turnFailed) return
    try {
      await turn.push(pcm)
    } catch (err) {
      this.#failTurn(turn, err)
    }
  }

  /** The speaker paused: the turn's final may be decoded now (see LiveTurn). */
  async #speculate(): Promise<void> {
    const turn = this.#turn
    if (!turn || this.#turnFailed) return
    try {
      await turn.speculate()
    } catch (err) {
      this.#failTurn(turn, err)
    }
  }

  #failTurn(turn: LiveTurn, err: unknown): void {
    turn.cancel()
    if (this.#closed || (isAbortError(err) && this.#turn !== turn)) return
    this.#turnFailed = true
    this.#events.push({ type: 'failed', turn: turn.id, error: toSpeechError(err) })
  }

  /** Ends the turn in progress; `asked` (the client's commit) with nothing to commit is an error. */
  async #commit(asked: boolean): Promise<void> {
    const turn = this.#turn
    this.#turn = undefined
    this.#detector?.reset()
    if (!turn) {
      if (asked) this.#events.push({ type: 'error', error: new SpeechError('bad_request', 'nothing to commit: no audio since the last commit or turn') })
      return
    }
    this.#events.push({ type: 'committed', turn: turn.id })
    if (this.#turnFailed) return
    try {
      const result = await turn.finish()
      this.#events.push({ type: 'final', turn: turn.id, ...result })
      if (result.words.length > 0) this.#channel = turn.heard()
    } catch (err) {
      this.#failTurn(turn, err)
    }
  }

  #clear(): void {
    this.#turn?.cancel()
    this.#turn = undefined
    this.#recent = []
    this.#detector?.reset()
    this.#events.push({ type: 'cleared' })
  }
}
