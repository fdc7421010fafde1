import { snapRange, textWords, type TextWord } from '../text-words.js'
import type { Envelope } from '../envelope.js'
import type { EngineWord } from '../types.js'
import type { EspeakEventInfo } from './protocol.js'

interface Timeline {
  /** Seconds of leading audio the trimmer dropped. */
  readonly offset: number
  readonly envelope: Envelope
  /** Seconds of audio yielded so far, including the current chunk. */
  readonly emitted: number
}

/**
 * Turns eSpeak's word events into `EngineWord`s. A word starts at its event and ends at the next word or
 * clause end, tightened to where the audio is loud (eSpeak puts a clause's pause inside its last word).
 * Character positions are code points (1-based) and become UTF-16 offsets snapped to whole words; parts
 * of one word (eSpeak reports `25` as `2`…`5`) are merged, so a word is held until the next one is known.
 */
export class WordTracker {
  readonly #text: string
  readonly #words: readonly TextWord[]
  readonly #utf16: readonly number[]
  #open?: { start: number; range: { start: number; end: number } }
  /** A word event that pointed at a space: either more of the open word, or the next word misplaced. */
  #tentative?: { at: number; position: number }
  #held?: EngineWord
  #floor = 0

  /** `toText[k]`: UTF-16 offset in `text` of the engine's code point k (see `escapeSsml`), plus the end. */
  constructor(text: string, toText: readonly number[]) {
    this.#text = text
    this.#words = textWords(text)
    this.#utf16 = toText
  }

  /** Words that are final after this chunk's events. */
  push(events: readonly EspeakEventInfo[], t: Timeline): EngineWord[] {
    const ready: EngineWord[] = []
    for (const e of events) {
      const at = e.audio_position / 1000
      if (e.type !== 'word') {
        this.#resolve(undefined, t, ready)
        this.#close(at, t, ready, this.#utf16At(e.text_position))
        continue
      }
      const range = this.#range(e.text_position, e.word_length)
      const open = this.#open
      if (!range) {
        if (open && !this.#tentative) this.#tentative = { at, position: this.#utf16At(e.text_position) }
        continue
      }
      // eSpeak reads a symbol as several words (😀 is "grinning face"); later parts point just after it.
      if (open && !range.inWord && range.start === open.range.end) continue
      this.#resolve(range, t, ready)
      this.#close(at, t, ready, range.start)
      this.#open = { start: at, range }
    }
    return ready
  }

  /** The remaining words once the audio has ended at raw time `end` (seconds). */
  finish(end: number, t: Timeline): EngineWord[] {
    const ready: EngineWord[] = []
    this.#resolve(undefined, t, ready)
    this.#close(end, t, ready)
    if (this.#held) ready.push(this.#clamp(this.#held, t))
    this.#held = undefined
    return ready
  }

  /**
   * A word event at a space is more of the open word ("face" of 😀) when the next event claims the text
   * word after that space; otherwise it was that text word, reported one character early (eSpeak does this
   * after a one-letter word: "a while").
   */
  #resolve(next: { start: number } | undefined, t: Timeline, ready: EngineWord[]): void {
    const tentative = this.#tentative
    this.#tentative = undefined
    if (!tentative) return
    const word = this.#wordFrom(tentative.position)
    if (!word || (next && next.start <= word.start)) return
    this.#close(tentative.at, t, ready)
    this.#open = { start: tentative.at, range: { start: word.start, end: word.end } }
  }

  #wordFrom(position: number): TextWord | undefined {
    let lo = 0
    let hi = this.#words.length
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (this.#words[mid]!.start < position) lo = mid + 1
      else hi = mid
    }
    return this.#words[lo]
  }

  #utf16At(position: number): number {
    return this.#utf16[Math.min(this.#utf16.length - 1, Math.max(0, position - 1))]!
  }

  #range(position: number, length: number): ReturnType<typeof snapRange> {
    return snapRange(this.#text, this.#words, this.#utf16At(position), this.#utf16At(position + length))
  }

  /**
   * Ends the open word at raw time `rawEnd`. Text words between it and `until` (where the next event's text
   * starts) that got no event of their own share its time by length: eSpeak speaks some pairs as one unit
   * with one event ("I am" → a single event at "I").
   */
  #close(rawEnd: number, t: Timeline, ready: EngineWord[], until?: number): void {
    const open = this.#open
    if (!open) return
    this.#open = undefined
    const span = t.envelope.tighten(Math.max(0, open.start - t.offset), Math.max(0, rawEnd - t.offset))
    const unvoiced = until === undefined ? [] : this.#words.filter((w) => w.start >= open.range.end && w.end <= until)
    const parts = [open.range, ...unvoiced]
    const weights = parts.map((p) => p.end - p.start)
    const total = weights.reduce((a, b) => a + b, 0)
    let from = span.start
    parts.forEach((p, i) => {
      const to = i === parts.length - 1 ? span.end : from + ((span.end - span.start) * weights[i]!) / total
      this.#hold({ text: this.#text.slice(p.start, p.end), start: from, end: to, charStart: p.start, charEnd: p.end }, t, ready)
      from = to
    })
  }

  /** Holds `word` until the next is known: parts of one text word (`2`…`5` of `25`) are merged. */
  #hold(word: EngineWord, t: Timeline, ready: EngineWord[]): void {
    const held = this.#held
    if (held && word.charStart < held.charEnd) {
      const a = Math.min(held.charStart, word.charStart)
      const b = Math.max(held.charEnd, word.charEnd)
      const end = Math.max(held.end, word.end)
      this.#held = { text: this.#text.slice(a, b), start: held.start, end, charStart: a, charEnd: b }
      return
    }
    if (held) ready.push(this.#clamp(held, t))
    this.#held = word
  }

  #clamp(w: EngineWord, t: Timeline): EngineWord {
    const end = Math.min(w.end, t.emitted)
    const start = Math.min(Math.max(w.start, this.#floor), end)
    this.#floor = Math.max(start, end)
    return { ...w, start, end: this.#floor }
  }
}
