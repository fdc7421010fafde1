import type { AsrEngine, AsrStream, RecognizedWord } from '../../../engines/asr/types.js'
import { abortReason } from '../../../abort.js'
import { DECODE_RATE } from './input.js'
import { PartialTracker, type Partial } from './partials.js'

/** Audio is handed to the decoder in blocks of at least this much (100 ms): fewer messages, same words. */
const FEED_SAMPLES = 1600
/**
 * The decoder starts with the turn's first second (its padding and first speech): the cepstral mean that
 * normalises the channel for the partials is measured on it (see `startStream` in the pocketsphinx decoder).
 * Measured with bench:live-asr on the real-speech set, as the WER of the live pass: 44.1 % starting with 0.1 s,
 * 40.7 % with 0.5 s, 34.7 % with 1 s; the first partial comes about 0.6 s after speech_started instead of 0.2 s.
 * pocketsphinx measures the mean again at 2 s (its finals depend on that, not on this) and decodes a shorter turn
 * that outgrew its first block again at its end.
 */
const FIRST_SAMPLES = 16_000
/** Audio of a turn kept for the next turn's channel normalisation (`LiveCallOptions.channel`): 3 s. */
const CHANNEL_SAMPLES = 48_000

export interface TurnContext {
  readonly engine: AsrEngine
  readonly language: string
  /** The session's previous turn's audio: the decoder measures the channel there and can start at once. */
  readonly channel?: Int16Array
  /** Takes a place in the ASR gate for the turn's decoder; resolves with its release. */
  hold(signal: AbortSignal): Promise<() => void>
  partial(partial: Partial): void
}

/** One turn's words in the session's clock. */
export interface TurnResult {
  readonly text: string
  readonly words: readonly RecognizedWord[]
  /** Seconds of audio the turn held. */
  readonly audioSec: number
}

const concat16 = (parts: readonly Int16Array[]): Int16Array => {
  const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const p of parts) {
    out.set(p, at)
    at += p.length
  }
  return out
}

/**
 * One turn's decoding. With an engine that decodes live, audio goes to its decoder as it comes (the first
 * block waits for a place in the gate and a decoder) and every block yields a partial; otherwise the turn's
 * audio is kept and recognised whole at its end.
 *
 * When the speaker pauses (`speculate`) and the engine can, the final is decoded from the audio so far in the
 * background while the silence that follows is held back: if the turn ends in that silence, `finish` ends the
 * stream with nothing more fed and the engine answers the words it already has, so the final does not wait for
 * a whole-turn decode started only at the end. If speech resumes (`resume`), that decode is aborted and the held
 * audio goes to the decoder as usual.
 */
export class LiveTurn {
  readonly id: string
  /** Session clock (seconds) of the turn's first sample. */
  readonly startSec: number
  readonly #ctx: TurnContext
  readonly #abort = new AbortController()
  readonly #tracker = new PartialTracker()
  #pending: Int16Array[] = []
  #pendingLength = 0
  #kept: Int16Array[] = []
  #recent: Int16Array[] = []
  #recentLength = 0
  #samples = 0
  #stream: AsrStream | undefined
  #release: (() => void) | undefined
  /** The speculative final under way, if any: audio is held back from the decoder while it stands. */
  #speculation: AbortController | undefined

  constructor(id: string, startSec: number, ctx: TurnContext) {
    this.id = id
    this.startSec = startSec
    this.#ctx = ctx
  }

  get seconds(): number {
    return this.#samples / DECODE_RATE
  }

  /** Adds audio; decodes a block once enough has come. Rejects when the turn cannot be decoded. */
  async push(pcm: Int16Array): Promise<void> {
    this.#samples += pcm.length
    this.#pending.push(pcm)
    this.#pendingLength += pcm.length
    this.#recent.push(pcm)
    this.#recentLength += pcm.length
    while (this.#recentLength - this.#recent[0]!.length >= CHANNEL_SAMPLES) this.#recentLength -= this.#recent.shift()!.length
    if (this.#speculation) return
    const first = this.#ctx.channel ? FEED_SAMPLES : FIRST_SAMPLES
    if (this.#pendingLength >= (this.#stream ? FEED_SAMPLES : first)) await this.#feed()
  }

  /**
   * The speaker paused (the silence that may end the turn began): everything so far goes to the decoder and
   * its final is decoded in the background. At most one at a time; a no-op for an engine that cannot.
   */
  async speculate(): Promise<void> {
    if (!this.#ctx.engine.openStream || this.#speculation || this.#abort.signal.aborted) return
    if (this.#stream && !this.#stream.decodeSoFar) return
    if (this.#pendingLength > 0) await this.#feed()
    const stream = this.#stream
    if (!stream?.decodeSoFar) return
    const speculation = new AbortController()
    this.#speculation = speculation
    // Its outcome reaches the final through `end()`; a failure of the stream shows there too.
    stream.decodeSoFar(speculation.signal).catch(() => {})
  }

  /** Speech came back after a pause: the speculative final is dropped and the held audio goes on to the decoder. */
  resume(): void {
    this.#speculation?.abort(new DOMException('speech resumed', 'AbortError'))
    this.#speculation = undefined
  }

  /** Decodes what is left and ends the turn: its words, in the session's clock. */
  async finish(): Promise<TurnResult> {
    try {
      let words: readonly RecognizedWord[]
      if (this.#ctx.engine.openStream) {
        // Held back since the pause, which the speculative final covers: only silence (or padding) came after it.
        if (this.#speculation) {
          this.#pending = []
          this.#pendingLength = 0
        } else if (this.#pendingLength > 0) await this.#feed()
        words = this.#stream ? await this.#stream.end() : []
      } else {
        if (!this.#release) await this.#take(this.#abort.signal)
        words = await this.#ctx.engine.transcribe(concat16(this.#kept), { language: this.#ctx.language, signal: this.#abort.signal })
      }
      const timed = words.map((w) => ({ ...w, start: round3(w.start + this.startSec), end: round3(w.end + this.startSec) }))
      return { text: timed.map((w) => w.word).join(' '), words: timed, audioSec: this.seconds }
    } finally {
      this.#done()
    }
  }

  /** The turn's last seconds of audio, for the next turn's `channel`. */
  heard(): Int16Array {
    return concat16(this.#recent)
  }

  /** Drops the turn (a clear, a failure, the session closing): its decoder and gate place are freed. */
  cancel(): void {
    this.resume()
    this.#abort.abort(new DOMException('turn dropped', 'AbortError'))
    this.#done()
  }

  #done(): void {
    this.#release?.()
    this.#release = undefined
  }

  async #take(signal: AbortSignal): Promise<void> {
    const release = await this.#ctx.hold(signal)
    // Dropped while it waited: the place goes straight back.
    if (signal.aborted) {
      release()
      throw abortReason(signal)
    }
    this.#release = release
  }

  async #feed(): Promise<void> {
    const block = concat16(this.#pending)
    this.#pending = []
    this.#pendingLength = 0
    const { engine, language } = this.#ctx
    if (!engine.openStream) {
      this.#kept.push(block)
      return
    }
    const signal = this.#abort.signal
    let words: readonly string[]
    if (this.#stream) {
      words = await this.#stream.feed(block)
    } else {
      await this.#take(signal)
      const channel = this.#ctx.channel
      const opened = await engine.openStream(block, { language, signal, ...(channel && { channel }) })
      this.#stream = opened.stream
      words = opened.words
    }
    const partial = this.#tracker.update(words)
    this.#ctx.partial(partial)
  }
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000
}
