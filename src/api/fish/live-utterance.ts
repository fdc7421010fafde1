import type { WebSocket } from 'ws'
import type { EncoderSession } from '../../audio/types.js'
import type { TtsParams } from '../../services/tts/params.js'
import { nothingToSpeak, type TtsService } from '../../services/tts/service.js'
import { isNothingToSpeak } from '../../services/tts/nothing-to-speak.js'
import { followAbort } from '../../abort.js'
import type { Principal } from '../../principal.js'
import type { Admission, AdmissionTicket } from '../../services/admission/admission.js'
import { meteredSpeech } from '../../services/account/metered-speech.js'
import type { QuotaTicket } from '../../services/account/quota.js'
import { decideLanguage, type LanguageDecision } from '../../text/index.js'
import { describeLanguages } from './language-note.js'
import { pauseAfterMs, plainText, splitFirstPhrase, TextBuffer } from './live-buffer.js'

/** Pause reading the synthesis while this much audio waits in the socket, so slow readers bound memory. */
export const HIGH_WATER_BYTES = 512 * 1024
/** Gap between the last audio frame and `finish`: one client drops a second message arriving in the same tick. */
const FINISH_GAP_MS = 5
/** With less audio than this still to play at the client, the next unit's first phrase goes out on its own. */
const SPLIT_BELOW_LEAD_SEC = 0.3
/**
 * Pipecat drops audio frames of 1,024 bytes or less (its msgpack-overhead filter). Raw PCM and WAV frames that
 * small (a unit's first block at 8 kHz, the resampler's tail) are held and sent with the next audio.
 */
const MIN_FRAME_BYTES = 1026
/** Text kept for language detection. */
const HEARD_CHARS = 400
/** A unit's first audio this late after its client ran out of audio is a stall the node is told about. */
const STALL_MS = 50
/** A socket keeps its admission place this long after its client has played everything (the next reply's tokens). */
const HOLD_AFTER_PLAYED_SEC = 1
/**
 * How long a unit may wait for an admission place before its utterance fails, beyond the audio its client
 * still has to play, by the session's `latency`: a conversation would rather hear a reply a little late
 * than get an error instead (the node's `admissionWaitSec` applies if it is longer).
 */
export const FIRST_AUDIO_BUDGET_SEC = { low: 1, balanced: 2, normal: 3 } as const
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export interface UtteranceContext {
  readonly tts: TtsService
  readonly principal: Principal
  /** A socket counts as a stream while it speaks (see `hold`). */
  readonly admission: Admission
  readonly socket: WebSocket
  /** Sends a frame if the socket is open. */
  send(frame: object): void
  /** Synthesis failed (not aborted): the session ends the utterance and reports `err`. */
  failed(err: unknown): void
  /** The socket's quota admission: text is charged as it is spoken, and its audio counted. */
  readonly quota?: QuotaTicket
  /** The client's `start` asked for `debug`: `log` frames say how each unit's language was decided. */
  readonly debug?: boolean
}

/**
 * One `start` … `finish` on a live socket. Text is spoken in units (see `TextBuffer`) that synthesize one
 * after another into one encoder, so the audio frames concatenate to one file. When the client has next to
 * nothing left to play, a unit's first phrase goes ahead alone (`splitFirstPhrase`); the pause its
 * punctuation calls for is added before the next unit, less any gap the client already heard.
 */
export class Utterance {
  readonly params: TtsParams
  readonly buffer: TextBuffer
  readonly signal: AbortSignal
  stopping = false
  private readonly ctx: UtteranceContext
  private readonly abort = new AbortController()
  private encoder: EncoderSession | null = null
  private queue: Promise<void> = Promise.resolve()
  /** The start's voice check: true once it passed (the encoder is then set), false if it failed. */
  private readonly voicesChecked: Promise<boolean>
  private inflight = 0
  private heard = ''
  private sentSec = 0
  private firstSentAt = 0
  private pauseMs = 0
  private blockedSince: number | undefined
  /** Raw audio too small to send alone (see MIN_FRAME_BYTES). */
  private held: Uint8Array | null = null
  /** Some unit made a sound: an utterance with nothing to speak ends as `/v1/tts` would answer it. */
  private planned = false
  /** Why the last silent unit said nothing (`voiceSaidNothing`), for that answer. */
  private silence: unknown
  /** Some text was queued for synthesis. */
  private enqueued = false
  /** `stop` came and its `finish` is not sent yet (the encoder's tail and the finish gap are still ahead). */
  private finishing = false
  private ticket: AdmissionTicket | null = null
  /** The last `log` sent (debug sessions): a unit decided as the one before says nothing new. */
  private lastLog: string | undefined
  private letGo: NodeJS.Timeout | undefined
  /** Stops following the socket's `closed` signal (see the constructor). */
  private readonly unlink: () => void

  constructor(params: TtsParams, ctx: UtteranceContext, closed: AbortSignal) {
    this.params = params
    this.ctx = ctx
    this.buffer = new TextBuffer(params.chunkLength, params.dialect)
    // Not `AbortSignal.any([own, closed])`: Node keeps a composite signal that has abort listeners alive until it
    // aborts, so every utterance that finished normally (its own signal never aborted) stayed reachable, with
    // its encoder and text, until its socket closed. This link is undone when the utterance ends (`end`).
    this.unlink = followAbort(closed, this.abort)
    this.signal = this.abort.signal
    this.signal.addEventListener('abort', () => this.releasePlace(), { once: true })
    // Check the voices now, so an unknown reference_id fails at start rather than at the first text. The check
    // is not queued ahead of the units: the first unit is planned alongside it and waits for it only before
    // its audio (see `enqueue`), so a reply's first audio does not wait for two plannings in a row.
    this.voicesChecked = ctx.tts.prepare({ ...params, text: '' }, ctx.principal, this.signal).then(
      (speech) => {
        this.encoder = speech.newEncoderSession()
        return true
      },
      (err) => {
        if (!this.signal.aborted) this.ctx.failed(err)
        return false
      },
    )
    this.queue = this.voicesChecked.then(() => {})
  }

  /** Synthesis is queued or running, or the `finish` of a `stop` is still to be sent. */
  get busy(): boolean {
    return this.inflight > 0 || this.finishing
  }

  /** Seconds the client has not read any audio while some waits (0 when it reads). */
  get stalledSec(): number {
    return this.blockedSince === undefined ? 0 : (performance.now() - this.blockedSince) / 1000
  }

  /** Stops the utterance (or, after its `finish`, lets it go): its signal aborts and no longer follows the socket. */
  end(): void {
    this.unlink()
    this.abort.abort(new DOMException('utterance ended', 'AbortError'))
  }

  speak(text: string): void {
    if (text === '') return
    this.heard = `${this.heard} ${plainText(text, this.params.dialect)}`.slice(-HEARD_CHARS)
    const decision = decideLanguage(this.heard, this.params.defaultLanguage ?? 'en')
    const waiting = this.inflight === 0 && this.leadSec() < SPLIT_BELOW_LEAD_SEC && this.params.latency !== 'normal'
    for (const unit of waiting ? splitFirstPhrase(text, this.params.dialect) : [text]) this.enqueue(unit, decision)
  }

  /** Speaks what is left, then sends `finish` and calls `done`. */
  stop(done: () => void): void {
    this.stopping = true
    this.speak(this.buffer.takeAll())
    this.finishing = true
    this.queue = this.queue.then(async () => {
      try {
        await this.finish(done)
      } finally {
        this.finishing = false
      }
    })
  }

  private async finish(done: () => void): Promise<void> {
    if (this.signal.aborted || !this.encoder) return
    // Text that planned to nothing is the 422 of /v1/tts; no text at all (start, then stop) is no request for
    // speech, and finishes quietly as clients that open an utterance and cancel it expect.
    if (!this.planned && this.enqueued) return this.ctx.failed(this.silence ?? nothingToSpeak())
    if (this.planned) await this.sendAudio(this.encoder.end(), 0, 'last')
    await sleep(FINISH_GAP_MS)
    if (this.signal.aborted) return
    this.releasePlace()
    done()
    this.ctx.send({ event: 'finish', reason: 'stop' })
    this.end()
  }

  private enqueue(unit: string, session: LanguageDecision): void {
    this.inflight++
    const params = { ...this.params, text: unit, languageHint: session.language, presplit: true }
    // The first unit queues behind the voice check only; it is planned meanwhile.
    const early = this.enqueued ? undefined : this.ctx.tts.prepare(params, this.ctx.principal, this.signal)
    this.enqueued = true
    early?.catch(() => {}) // awaited below, unless the voice check failed
    this.queue = this.queue.then(async () => {
      try {
        if (this.signal.aborted || !this.encoder) return
        const encoder = this.encoder
        await this.hold(unit.length)
        const prepared = await (early ?? this.ctx.tts.prepare(params, this.ctx.principal, this.signal))
        const quota = this.ctx.quota
        await quota?.charge(unit.length)
        const speech = quota ? meteredSpeech(prepared, quota) : prepared
        if (this.ctx.debug) await this.logLanguages(speech.chunks.map((c) => (c.languageDecision.reason === 'session' ? session : c.languageDecision)))
        // Due when the client runs out of audio: engines serve the earliest deadline first, so a waiting
        // client's first phrase goes before another socket's continuation.
        const lead = this.leadSec()
        const dueAt = performance.now() + Math.max(0, lead) * 1000
        let first = true
        // The live socket sends audio only: no engine need find word timings for it.
        for await (const event of speech.render(this.signal, dueAt, false)) {
          if (event.type !== 'audio') continue
          this.planned = true
          // The client still had audio when this unit was taken up, and ran out before it came: the node is
          // slower than real time (admission control then admits fewer streams for a while).
          if (first && lead > 0 && performance.now() > dueAt + STALL_MS) this.ctx.admission.fellBehind('live')
          const samples = first ? this.withPause(event.samples, speech.outputRate) : event.samples
          first = false
          await this.sendAudio(encoder.push(samples), samples.length / speech.outputRate)
        }
        // Nothing else queued: a small tail goes now, padded with a few ms of silence, rather than wait.
        if (this.inflight === 1 && !this.stopping) await this.sendAudio(new Uint8Array(0), 0, 'pad')
        this.pauseMs = pauseAfterMs(unit, this.params.dialect)
      } catch (err) {
        // One unit the voice has no sound for (a stray symbol between sentences) is silent; an utterance none of
        // whose units made a sound fails at `finish`, as /v1/tts would answer it.
        if (isNothingToSpeak(err)) this.silence = err
        else if (!this.signal.aborted) this.ctx.failed(err)
      } finally {
        this.inflight--
        if (this.inflight === 0) this.releaseLater()
      }
    })
  }

  /**
   * An admission place while this socket speaks: taken for its first unit (waiting in line up to the session's
   * latency budget, or failing with the 503 message when the node stays full that long), kept while units follow and the client still has audio to
   * play, so a reply is not cut between its sentences.
   */
  private async hold(chars: number): Promise<void> {
    clearTimeout(this.letGo)
    if (this.ticket) return
    const waitSec = Math.max(0, this.leadSec()) + FIRST_AUDIO_BUDGET_SEC[this.params.latency]
    this.ticket = await this.ctx.admission.admit('live', this.signal, { chars, waitMs: waitSec * 1000 })
  }

  private releaseLater(): void {
    clearTimeout(this.letGo)
    this.letGo = setTimeout(() => this.releasePlace(), (Math.max(0, this.leadSec()) + HOLD_AFTER_PLAYED_SEC) * 1000).unref()
  }

  private releasePlace(): void {
    clearTimeout(this.letGo)
    this.ticket?.release()
    this.ticket = null
  }

  /** `bytes` after any held ones; holds raw audio that would make too small a frame (unless `end`). */
  private withHeld(bytes: Uint8Array, end?: 'last' | 'pad'): Uint8Array {
    if (this.params.format !== 'pcm' && this.params.format !== 'wav') return bytes
    let out = bytes
    if (this.held) {
      out = new Uint8Array(this.held.length + bytes.length)
      out.set(this.held)
      out.set(bytes, this.held.length)
      this.held = null
    }
    if (out.length === 0 || out.length >= MIN_FRAME_BYTES || end === 'last') return out
    if (end !== 'pad') {
      this.held = out
      return new Uint8Array(0)
    }
    // 16-bit samples: zeros are silence, and the even length keeps them aligned.
    const padded = new Uint8Array(MIN_FRAME_BYTES)
    padded.set(out)
    return padded
  }

  /**
   * A `log` frame with the unit's language decisions (the session's own, decided on all its text so far, for
   * chunks that follow it), when they differ from the last one sent. A turn of the event loop follows, as
   * after audio (see `sendAudio`), so a client that keeps one message per read loses no audio to it.
   */
  private async logLanguages(decisions: readonly LanguageDecision[]): Promise<void> {
    const languages = describeLanguages(decisions)
    if (languages === undefined || languages === this.lastLog || this.signal.aborted) return
    this.lastLog = languages
    this.ctx.send({ event: 'log', message: `language ${languages}` })
    await new Promise((resolve) => setImmediate(resolve))
  }

  /** Seconds of audio the client has been sent but, playing in real time, has not played yet. */
  private leadSec(): number {
    return this.sentSec === 0 ? 0 : this.sentSec - (performance.now() - this.firstSentAt) / 1000
  }

  private withPause(samples: Float32Array, rate: number): Float32Array {
    const heardGapSec = Math.max(0, -this.leadSec())
    const sec = Math.max(0, this.pauseMs / 1000 / this.params.speed - heardGapSec)
    this.pauseMs = 0
    if (sec === 0) return samples
    const out = new Float32Array(Math.round(sec * rate) + samples.length)
    out.set(samples, out.length - samples.length)
    return out
  }

  private async sendAudio(bytes: Uint8Array, seconds: number, end?: 'last' | 'pad'): Promise<void> {
    bytes = this.withHeld(bytes, end)
    if (bytes.length === 0 && seconds === 0) return
    const socket = this.ctx.socket
    if (socket.bufferedAmount > HIGH_WATER_BYTES) {
      this.blockedSince = performance.now()
      const blocked = () => socket.bufferedAmount > HIGH_WATER_BYTES && socket.readyState === socket.OPEN
      while (blocked() && !this.signal.aborted) await sleep(10)
      this.blockedSince = undefined
    }
    if (this.signal.aborted) return
    if (this.sentSec === 0) this.firstSentAt = performance.now()
    this.sentSec += seconds
    if (bytes.length === 0) return
    this.ctx.send({ event: 'audio', audio: bytes })
    this.ticket?.firstAudio()
    // One frame per turn of the event loop: frames written in one turn reach the client as one read, and
    // npm fish-audio-sdk keeps only the first message of a read. This also lets other sockets take turns.
    await new Promise((resolve) => setImmediate(resolve))
  }
}
