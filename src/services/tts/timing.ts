import type { EngineWord } from '../../engines/tts/types.js'
import type { TokenMap } from '../../text/types.js'

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

  /** Adds the words of one engine piece, their ends moved to where the sound dies away (`audibleEnds`). */
  addPiece(words: readonly EngineWord[], samples: Float32Array, rate: number, pieceStartSec: number, toChunkTime: (engineSec: number) => number): void {
    const refined = audibleEnds(words, samples, rate, pieceStartSec, this.peak)
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

/** A word's audible end: where its energy falls this far below the loudest 5 ms of the chunk so far. */
const END_BELOW_PEAK_DB = 45
/** How far past the engine's end a word may ring on into the pause that follows it. */
const MAX_RING_SEC = 0.2
/** Words closer than this to the next word are left alone: there is no pause to ring into. */
const MIN_PAUSE_SEC = 0.04

/**
 * Engines end a word where their model's last segment ends, but before a pause the sound rings on: HTS
 * voices smooth the spectrum into the pause, 30–80 ms at normal speed. For each word followed by a pause
 * (or ending the piece), the end moves to where its energy has actually died away, never into the next
 * word. `samples` is the engine piece that starts at `pieceStartSec` on the engine's timeline; `peak` is the
 * loudest frame RMS heard before it in the chunk (a quiet last piece is measured against the whole chunk).
 * Returns the words and the updated peak.
 */
export function audibleEnds(words: readonly EngineWord[], samples: Float32Array, rate: number, pieceStartSec: number, peak = 0): { words: readonly EngineWord[]; peak: number } {
  const frame = Math.max(1, Math.round(rate * 0.005))
  const frames = Math.floor(samples.length / frame)
  const rms = new Float32Array(frames)
  for (let f = 0; f < frames; f++) {
    let e = 0
    for (let i = f * frame; i < (f + 1) * frame; i++) e += samples[i]! * samples[i]!
    rms[f] = Math.sqrt(e / frame)
    peak = Math.max(peak, rms[f]!)
  }
  if (words.length === 0 || frames === 0) return { words, peak }
  const level = peak * 10 ** (-END_BELOW_PEAK_DB / 20)
  const pieceEnd = pieceStartSec + samples.length / rate
  const out = words.map((w, i) => {
    const next = words[i + 1]?.start ?? pieceEnd
    if (next - w.end < MIN_PAUSE_SEC || w.end < pieceStartSec) return w
    const limit = Math.min(next, w.end + MAX_RING_SEC, pieceEnd)
    let f = Math.min(frames, Math.floor(((limit - pieceStartSec) * rate) / frame)) - 1
    const from = Math.floor(((w.end - pieceStartSec) * rate) / frame)
    while (f >= from && rms[f]! < level) f--
    const end = pieceStartSec + ((f + 1) * frame) / rate
    return end > w.end ? { ...w, end: Math.min(end, limit) } : w
  })
  return { words: out, peak }
}
