import type { WebSocket } from 'ws'
import type { EncoderSession } from '../../audio/types.js'
import type { TtsParams } from '../../services/tts/params.js'
import { nothingToSpeak, type TtsService } from '../../services/tts/service.js'
import type { Principal } from '../../principal.js'
import { meteredSpeech } from '../../services/account/metered-speech.js'
import type { QuotaTicket } from '../../services/account/quota.js'
import { detectLanguage } from '../../text/index.js'
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
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export interface UtteranceContext {
  readonly tts: TtsService
  readonly principal: Principal
  readonly socket: WebSocket
  /** Sends a frame if the socket is open. */
  send(frame: object): void
  /** Synthesis failed (not aborted): the session ends the utterance and reports `err`. */
  failed(err: unknown): void
  /** The socket's quota admission: text is charged as it is spoken, and its audio counted. */
  readonly quota?: QuotaTicket
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
  private inflight = 0
  private heard = ''
  private sentSec = 0
  private firstSentAt = 0
  private pauseMs = 0
  private blockedSince: number | undefined
  /** Raw audio too small to send alone (see MIN_FRAME_BYTES). */
  private held: Uint8Array | null = null
  /** Some unit planned to speech: an utterance with nothing to speak ends as `/v1/tts` would answer it. */
  private planned = false
  /** Some text was queued for synthesis. */
  private enqueued = false
  /** `stop` came and its `finish` is not sent yet (the encoder's tail and the finish gap are still ahead). */
  private finishing = false

  constructor(params: TtsParams, ctx: UtteranceContext, closed: AbortSignal) {
    this.params = params
    this.ctx = ctx
    this.buffer = new TextBuffer(params.chunkLength, params.dialect)
    this.signal = AbortSignal.any([this.abort.signal, closed])
    // Check the voices now, so an unknown reference_id fails at start rather than at the first text.
    this.queue = ctx.tts.prepare({ ...params, text: '' }, ctx.principal, this.signal).then(
      (speech) => void (this.encoder = speech.newEncoderSession()),
      (err) => void (this.signal.aborted || this.ctx.failed(err)),
    )
  }

  /** Synthesis is queued or running, or the `finish` of a `stop` is still to be sent. */
  get busy(): boolean {
    return this.inflight > 0 || this.finishing
  }

  /** Seconds the client has not read any audio while some waits (0 when it reads). */
  get stalledSec(): number {
    return this.blockedSince === undefined ? 0 : (performance.now() - this.blockedSince) / 1000
  }

  end(): void {
    this.abort.abort(new DOMException('utterance ended', 'AbortError'))
  }

  speak(text: string): void {
    if (text === '') return
    this.heard = `${this.heard} ${plainText(text, this.params.dialect)}`.slice(-HEARD_CHARS)
    const language = detectLanguage(this.heard, this.params.defaultLanguage ? [this.params.defaultLanguage] : undefined)
    const waiting = this.inflight === 0 && this.leadSec() < SPLIT_BELOW_LEAD_SEC && this.params.latency !== 'normal'
    for (const unit of waiting ? splitFirstPhrase(text, this.params.dialect) : [text]) this.enqueue(unit, language)
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
    if (!this.planned && this.enqueued) return this.ctx.failed(nothingToSpeak())
    if (this.planned) await this.sendAudio(this.encoder.end(), 0, 'last')
    await sleep(FINISH_GAP_MS)
    if (this.signal.aborted) return
    done()
    this.ctx.send({ event: 'finish', reason: 'stop' })
  }

  private enqueue(unit: string, language: string): void {
    this.enqueued = true
    this.inflight++
    this.queue = this.queue.then(async () => {
      try {
        const encoder = this.encoder
        if (this.signal.aborted || !encoder) return
        const params = { ...this.params, text: unit, languageHint: language, presplit: true }
        const prepared = await this.ctx.tts.prepare(params, this.ctx.principal, this.signal)
        const quota = this.ctx.quota
        await quota?.charge(unit.length)
        const speech = quota ? meteredSpeech(prepared, quota) : prepared
        if (speech.chunks.length > 0) this.planned = true
        // Due when the client runs out of audio: engines serve the earliest deadline first, so a waiting
        // client's first phrase goes before another socket's continuation.
        const dueAt = performance.now() + Math.max(0, this.leadSec()) * 1000
        let first = true
        for await (const event of speech.render(this.signal, dueAt)) {
          if (event.type !== 'audio') continue
          const samples = first ? this.withPause(event.samples, speech.outputRate) : event.samples
          first = false
          await this.sendAudio(encoder.push(samples), samples.length / speech.outputRate)
        }
        // Nothing else queued: a small tail goes now, padded with a few ms of silence, rather than wait.
        if (this.inflight === 1 && !this.stopping) await this.sendAudio(new Uint8Array(0), 0, 'pad')
        this.pauseMs = pauseAfterMs(unit, this.params.dialect)
      } catch (err) {
        if (!this.signal.aborted) this.ctx.failed(err)
      } finally {
        this.inflight--
      }
    })
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
    // One frame per turn of the event loop: frames written in one turn reach the client as one read, and
    // npm fish-audio-sdk keeps only the first message of a read. This also lets other sockets take turns.
    await new Promise((resolve) => setImmediate(resolve))
  }
}
