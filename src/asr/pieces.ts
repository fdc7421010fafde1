/**
 * Cutting a long recording into pieces for separate transcription (the spec's advice for recordings longer
 * than one request may be). A cut at a fixed time would split a word in two and lose it, so each piece
 * ends at the quietest moment shortly before its length limit.
 */

export interface Piece {
  /** First sample. */
  readonly start: number
  /** One past the last sample. */
  readonly end: number
}

const FRAME_SECONDS = 0.01
/** The quiet moment looked for: this many frames in a row with the least energy. */
const QUIET_FRAMES = 5
/** How far before the limit a cut may move, at most; at most a quarter of the piece length. */
const SEARCH_SECONDS = 30

/** Consecutive pieces covering `samples`, each at most `pieceSeconds` long, cut at pauses when there are some. */
export function pieceBounds(samples: Float32Array, sampleRate: number, pieceSeconds: number): Piece[] {
  const limit = Math.max(1, Math.floor(pieceSeconds * sampleRate))
  const frame = Math.max(1, Math.round(FRAME_SECONDS * sampleRate))
  const search = Math.min(Math.floor(SEARCH_SECONDS * sampleRate), Math.floor(limit / 4))
  const pieces: Piece[] = []
  for (let start = 0; start < samples.length;) {
    if (samples.length - start <= limit) {
      pieces.push({ start, end: samples.length })
      break
    }
    const end = quietestCut(samples, start + limit - search, start + limit, frame) ?? start + limit
    pieces.push({ start, end })
    start = end
  }
  return pieces
}

/** The middle of the quietest run of frames in [from, to), or undefined when the range is too short. */
function quietestCut(samples: Float32Array, from: number, to: number, frame: number): number | undefined {
  const frames = Math.floor((to - from) / frame)
  if (frames < QUIET_FRAMES) return undefined
  const energy = new Float64Array(frames)
  for (let f = 0; f < frames; f++) {
    let sum = 0
    for (let i = from + f * frame, stop = i + frame; i < stop; i++) sum += samples[i]! * samples[i]!
    energy[f] = sum
  }
  let window = 0
  for (let f = 0; f < QUIET_FRAMES; f++) window += energy[f]!
  let best = window
  let bestFirst = 0
  for (let f = QUIET_FRAMES; f < frames; f++) {
    window += energy[f]! - energy[f - QUIET_FRAMES]!
    // `<=`: among equally quiet places (digital silence) the latest keeps pieces as long as allowed.
    if (window <= best) {
      best = window
      bestFirst = f - QUIET_FRAMES + 1
    }
  }
  return from + (bestFirst + Math.floor(QUIET_FRAMES / 2)) * frame + Math.floor(frame / 2)
}
