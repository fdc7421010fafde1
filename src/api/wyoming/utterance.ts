import type { Deps } from '../../deps.js'
import type { QuotaNeed, QuotaTicket } from '../../services/account/quota.js'
import { startTranscriptChunks } from './transcript-chunks.js'
import { addChunk, startAudio, transcribeAudio, type IncomingAudio } from './transcription.js'

/** What an utterance needs from its connection. */
export interface UtteranceContext {
  readonly deps: Deps
  /** Aborts when the connection closes. */
  readonly signal: AbortSignal
  /** The connection's quota admission (its tickets are released when it closes). */
  admit(need: QuotaNeed): Promise<QuotaTicket>
  release(ticket: QuotaTicket): Promise<void>
  send(type: string, data?: Record<string, unknown>): Promise<void>
  /** The utterance was turned away at its start (quota or a full recognition line): an `error` event. */
  refused(err: unknown): void
}

interface Admission {
  readonly ticket: QuotaTicket
  /** Gives the place in the recognition line back. */
  readonly leave: () => void
}

/**
 * One transcription, `audio-start` to `transcript`. It is admitted at its start, as a live socket is at its
 * upgrade: the quota (a concurrency slot, audio seconds left this month), then a place in the ASR service's
 * recognition line, both held until the transcript is sent. The live preview decodes in that place and the
 * whole-utterance transcript runs in it, so an admitted utterance is not turned away after the user spoke,
 * and a refused one is told at once; its audio is then dropped.
 */
export class WyomingUtterance {
  readonly #ctx: UtteranceContext
  readonly #audio: IncomingAudio
  readonly #language: string | undefined
  readonly #dropped = new AbortController()
  readonly #admission: Promise<Admission>
  readonly #preview: ReturnType<typeof startTranscriptChunks>

  /** Checks `audio-start`'s format (throws before any admission) and asks for admission. */
  constructor(ctx: UtteranceContext, format: Record<string, unknown>, language: string | undefined) {
    this.#ctx = ctx
    this.#audio = startAudio(format)
    this.#language = language
    this.#admission = this.#admit(AbortSignal.any([ctx.signal, this.#dropped.signal]))
    this.#admission.catch((err: unknown) => {
      if (!this.#dropped.signal.aborted) ctx.refused(err)
      this.drop()
    })
    this.#preview = startTranscriptChunks(ctx.deps, this.#audio, language, this.#admission, ctx.send)
  }

  /** One `audio-chunk`; throws past the ASR upload limit. Audio of a refused utterance is not kept. */
  push(payload: Uint8Array | undefined): void {
    if (this.#dropped.signal.aborted) return
    addChunk(this.#audio, payload, this.#ctx.deps.config.asrMaxBytes)
    if (payload) this.#preview?.push(payload)
  }

  /** `audio-stop`: the preview's `transcript-stop`, then the whole utterance's `transcript`, in its place. */
  async finish(): Promise<void> {
    let admission: Admission
    try {
      admission = await this.#admission
    } catch {
      // Refused: the error event says so.
      return
    }
    try {
      if (this.#dropped.signal.aborted) return
      await this.#preview?.stop()
      const audio = this.#audio
      const transcript = await transcribeAudio(this.#ctx.deps, audio, this.#language, this.#ctx.signal, true)
      await admission.ticket.record({ audioSeconds: audio.bytes / (audio.rate * audio.width * audio.channels) })
      await this.#ctx.send('transcript', { ...transcript })
    } finally {
      await this.#free(admission)
    }
  }

  /** Abandons the utterance (a new `audio-start`, too much audio, a closed connection): its places go back. */
  drop(): void {
    if (this.#dropped.signal.aborted) return
    this.#dropped.abort()
    this.#preview?.close()
    this.#audio.chunks.length = 0
    this.#admission.then((a) => this.#free(a)).catch(() => {})
  }

  async #admit(signal: AbortSignal): Promise<Admission> {
    const ticket = await this.#ctx.admit({ transcribes: true })
    try {
      const leave = await this.#ctx.deps.asr.reserve(signal)
      if (signal.aborted) leave()
      return { ticket, leave }
    } catch (err) {
      await this.#ctx.release(ticket)
      throw err
    }
  }

  async #free(admission: Admission): Promise<void> {
    admission.leave()
    await this.#ctx.release(admission.ticket)
  }
}
