import type { EngineWord } from '../../engines/tts/types.js'
import type { TokenMap } from '../../text/types.js'
import { audibleEdges, type PieceAudio } from './audible-edges.js'

/** A word as the user wrote it, with times in seconds relative to its text chunk's audio. */
export interface Segment {
  readonly text: string
  readonly start: number
  readonly end: number
}

/**
 * Collects engine words for one text chunk and maps them onto the user's tokens: an engine word belongs to
 * the token whose spoken range it overlaps, so "$5" spoken as "five dollars" is one segment spanning both.
 * Tags never appear (they are not tokens). Times are mapped by `toChunkTime` (offsets, time-stretch).
 */
export class ChunkTimeline {
  private readonly tokens: readonly TokenMap[]
  private readonly spans = new Map<number, { start: number; end: number }>()
  private cursor = 0
  /** Loudest 5 ms frame RMS of the chunk's engine audio so far. */
  private peak = 0

  constructor(tokens: readonly TokenMap[]) {
    this.tokens = tokens
  }

  /** Adds the words of one engine piece with their edges at pauses moved onto the sound (`audibleEdges`). */
  addPiece(piece: PieceAudio, toChunkTime: (engineSec: number) => number): void {
    const refined = audibleEdges(piece, this.peak)
    this.peak = refined.peak
    this.add(refined.words, toChunkTime)
  }

  add(words: readonly EngineWord[], toChunkTime: (engineSec: number) => number): void {
    for (const word of words) {
      const index = this.tokenFor(word.charStart, word.charEnd)
      if (index < 0) continue
      const start = toChunkTime(word.start)
      const end = toChunkTime(word.end)
      const span = this.spans.get(index)
      if (span) {
        span.start = Math.min(span.start, start)
        span.end = Math.max(span.end, end)
      } else this.spans.set(index, { start, end })
    }
  }

  /** Ordered, non-overlapping segments, every `end` ≤ `audioDuration`. */
  snapshot(audioDuration: number): Segment[] {
    const out: Segment[] = []
    // Rounded down, so a rounded time never passes the (unrounded) duration.
    const cap = Math.floor(audioDuration * 1000 + 1e-6) / 1000
    let floor = 0
    for (const index of [...this.spans.keys()].sort((a, b) => a - b)) {
      const span = this.spans.get(index)!
      const start = Math.min(round(Math.max(span.start, floor)), cap)
      const end = Math.min(round(Math.max(span.end, start)), cap)
      out.push({ text: this.tokens[index]!.text, start, end })
      floor = end
    }
    return out
  }

  private tokenFor(charStart: number, charEnd: number): number {
    // Engine words arrive in order, so scan forward from the last match first.
    const hit = (i: number) => {
      const t = this.tokens[i]!
      return charStart < t.spokenEnd && charEnd > t.spokenStart
    }
    for (let i = this.cursor; i < this.tokens.length; i++) {
      if (hit(i)) return (this.cursor = i)
    }
    for (let i = 0; i < this.cursor; i++) if (hit(i)) return i
    return -1
  }
}

const round = (sec: number) => Math.round(sec * 1000) / 1000
