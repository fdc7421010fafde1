/** A hypothesis split for display: words that stopped changing, and the tail that may still change. */
export interface Partial {
  readonly stable: readonly string[]
  readonly tail: readonly string[]
  /** Words that became stable with this hypothesis (what an append-only client, such as OpenAI's deltas, gets). */
  readonly added: readonly string[]
}

/** Hypotheses in a row that must agree on a word (100 ms of audio apart) before it is stable. */
const AGREEING = 3

/**
 * Tracks one turn's successive hypotheses. A word is stable once the last `AGREEING` hypotheses agree on it
 * and on everything before it, and it is not the last word (the decoder revises the word it is in). Stable
 * words are never taken back, and they are counted by position: when the decoder revises an early word that
 * was already given out, later agreed words still come, and the final result has the decoder's last word.
 */
export class PartialTracker {
  readonly #recent: (readonly string[])[] = []
  readonly #stable: string[] = []

  update(words: readonly string[]): Partial {
    this.#recent.push(words)
    if (this.#recent.length > AGREEING) this.#recent.shift()
    let agreed = 0
    if (this.#recent.length === AGREEING) {
      while (agreed < words.length - 1 && this.#recent.every((h) => h[agreed] === words[agreed])) agreed++
    }
    const added = words.slice(this.#stable.length, Math.max(this.#stable.length, agreed))
    this.#stable.push(...added)
    return { stable: [...this.#stable], tail: words.slice(this.#stable.length), added }
  }
}
