import type { EngineWord } from '../../engines/tts/types.js'

/** One piece of engine output with its words, as the render loop sees it. */
export interface PieceAudio {
  readonly words: readonly EngineWord[]
  readonly samples: Float32Array
  readonly rate: number
  /** Where `samples` starts on the engine's timeline (word times use that timeline), seconds. */
  readonly startSec: number
  /** The piece is a whole utterance (silence before and after it), not a block of a running stream. */
  readonly whole: boolean
}

/** Sound this far below the loudest 5 ms of the chunk so far counts as gone. */
const BELOW_PEAK_DB = 45
/** How far an edge may move onto the sound. */
const MAX_SHIFT_SEC = 0.2
/** A gap between words shorter than this is no pause: those edges are left alone. */
const MIN_PAUSE_SEC = 0.04
const FRAME_SEC = 0.005

/**
 * Engines place word edges where their model's segments begin and end, but at a pause the sound does not
 * follow exactly: HTS voices ring on after a word, smoothing the spectrum into the pause (30–80 ms at
 * normal speed), and soft onsets (`w`, `y`) rise slowly, more so at slow speed. At each pause, a word's end
 * moves forward to the first moment its sound has died away and the next word's start moves forward to the
 * first moment it is heard. Edges only move within the gap and never into another word; an edge next to
 * audio the piece does not hold (a word of a running stream whose neighbour is not known yet) stays.
 * `peak` is the loudest frame RMS heard so far in the chunk, so a quiet last piece is measured against the
 * whole chunk. Returns the words and the updated peak.
 */
export function audibleEdges(piece: PieceAudio, peak = 0): { words: readonly EngineWord[]; peak: number } {
  const { words, samples, rate, startSec, whole } = piece
  const frame = Math.max(1, Math.round(rate * FRAME_SEC))
  const frames = Math.floor(samples.length / frame)
  const rms = new Float32Array(frames)
  for (let f = 0; f < frames; f++) {
    let e = 0
    for (let i = f * frame; i < (f + 1) * frame; i++) e += samples[i]! * samples[i]!
    rms[f] = Math.sqrt(e / frame)
    peak = Math.max(peak, rms[f]!)
  }
  if (words.length === 0 || frames === 0) return { words, peak }
  const level = peak * 10 ** (-BELOW_PEAK_DB / 20)
  const endSec = startSec + samples.length / rate
  const frameAt = (t: number) => Math.floor(((t - startSec) * rate) / frame)
  const timeOf = (f: number) => startSec + (f * frame) / rate
  // Forward from `from` while frames are loud (end) or quiet (start), up to `limit`.
  const scan = (from: number, limit: number, loud: boolean): number => {
    const last = Math.min(frames, frameAt(limit))
    let f = Math.max(0, frameAt(from))
    while (f < last && rms[f]! >= level === loud) f++
    return Math.min(limit, Math.max(from, timeOf(f)))
  }
  const out: EngineWord[] = []
  words.forEach((w, i) => {
    const prevEnd = i > 0 ? out[i - 1]!.end : whole ? startSec : undefined
    const next = words[i + 1]?.start ?? (whole ? endSec : undefined)
    let { start, end } = w
    if (prevEnd !== undefined && start - prevEnd >= MIN_PAUSE_SEC && start >= startSec) {
      start = scan(start, Math.min(end, start + MAX_SHIFT_SEC), false)
    }
    if (next !== undefined && next - end >= MIN_PAUSE_SEC && end >= startSec) {
      end = scan(end, Math.min(next, end + MAX_SHIFT_SEC, endSec), true)
    }
    out.push(start === w.start && end === w.end ? w : { ...w, start, end })
  })
  return { words: out, peak }
}
