/** How a session finds its turns: libfvad's verdict per 10 ms frame, smoothed into starts and ends. */
export interface TurnSettings {
  /** 0..1, how sure a frame must be to count as speech (libfvad's aggressiveness: 0 → mode 0, 1 → mode 3). */
  readonly threshold: number
  /** Silence that ends a turn, ms. */
  readonly silenceMs: number
  /** Audio kept before the detected start of speech, ms (the first syllable's onset is quieter). */
  readonly prefixPaddingMs: number
}

export const DEFAULT_TURN: TurnSettings = { threshold: 0.5, silenceMs: 500, prefixPaddingMs: 300 }

/** Speech starts when this many of the last `START_WINDOW` frames are voiced: a click or a cough is shorter. */
const START_VOICED = 8
const START_WINDOW = 12

/**
 * Silence inside a turn after which it may be ending (a `pause`): this much, or half `silenceMs` (the end) when
 * that is shorter. The final is decoded speculatively from here, so the earlier the better: the whole-turn decode
 * of a 2–3 s turn took 0.35–0.9 s on the 2-core machine at load 3. Most gaps inside words and between them are
 * shorter. Measured with bench:live-asr on the real-speech set (one session, load 3): 100 ms gave
 * speech_stopped → final p50 352 / p95 1,141 ms with 19 speculations for 15 turns (3 aborted at once, 1 decoded
 * and dropped); 200 ms p50 740 / p95 1,412 ms with one per turn.
 */
const PAUSE_MS = 100

export function vadMode(threshold: number): 0 | 1 | 2 | 3 {
  return Math.min(3, Math.max(0, Math.round(threshold * 3))) as 0 | 1 | 2 | 3
}

/**
 * Frame flags → turn boundaries. `push` answers `start` on the frame that makes speech certain (the turn
 * begins `START_WINDOW` frames earlier, plus the padding), `end` once `silenceMs` of unvoiced frames followed.
 * In between, `pause` when the silence that may end the turn has lasted long enough to be more than a gap
 * between words, and `resume` on the first voiced frame after a pause.
 */
export class TurnDetector {
  readonly #silenceFrames: number
  readonly #pauseFrames: number
  readonly #recent: boolean[] = []
  #speaking = false
  #silent = 0

  constructor(settings: TurnSettings) {
    this.#silenceFrames = Math.max(1, Math.round(settings.silenceMs / 10))
    this.#pauseFrames = Math.max(1, Math.min(Math.round(PAUSE_MS / 10), Math.floor(this.#silenceFrames / 2)))
  }

  get speaking(): boolean {
    return this.#speaking
  }

  /** Frames before the `start` frame that belong to the speech already (the window that decided it). */
  static readonly LEAD_FRAMES = START_WINDOW

  push(voiced: boolean): 'start' | 'pause' | 'resume' | 'end' | undefined {
    if (!this.#speaking) {
      this.#recent.push(voiced)
      if (this.#recent.length > START_WINDOW) this.#recent.shift()
      if (this.#recent.filter(Boolean).length < START_VOICED) return undefined
      this.#speaking = true
      this.#silent = 0
      this.#recent.length = 0
      return 'start'
    }
    if (voiced) {
      const paused = this.#silent >= this.#pauseFrames
      this.#silent = 0
      return paused ? 'resume' : undefined
    }
    this.#silent++
    if (this.#silent === this.#pauseFrames && this.#silent < this.#silenceFrames) return 'pause'
    if (this.#silent < this.#silenceFrames) return undefined
    this.#speaking = false
    return 'end'
  }

  /** Forgets any speech in progress (a commit or clear by the client). */
  reset(): void {
    this.#speaking = false
    this.#silent = 0
    this.#recent.length = 0
  }
}
