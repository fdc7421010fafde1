import { raceAbort } from '../../abort.js'
import { trimSilence } from './silence.js'
import type { TextPiece } from './split-sentences.js'
import type { EngineWord, SynthesisChunk } from './types.js'

/** One synthesized piece: word times in seconds from the start of `samples`, char offsets into the full text. */
export interface PieceResult {
  readonly samples: Float32Array
  readonly words: readonly EngineWord[]
}

/** Silence kept around speech, in seconds: little at the edges of the call, a natural pause between sentences. */
const EDGE = 0.06
const INNER_LEAD = 0.1
const INNER_TRAIL = 0.15

/**
 * Runs pieces (sentences) one after another and yields one chunk per piece. Piece n+1 is started before
 * piece n is yielded, so the engine works while the consumer encodes and sends. Silence is trimmed per
 * piece and word times are moved onto the call's timeline. The caller stops the engine in its `finally`
 * when this generator ends early (abort, error, or the consumer's `return()`).
 */
export async function* synthesizePieces(
  pieces: readonly TextPiece[],
  run: (piece: TextPiece) => Promise<PieceResult>,
  options: {
    readonly sampleRate: number
    readonly signal?: AbortSignal | undefined
    readonly silenceLevel?: number
    /** Speaking-rate factor of the call: kept silences scale with it like the speech does. */
    readonly rate?: number
  },
): AsyncGenerator<SynthesisChunk> {
  const { sampleRate, signal, silenceLevel } = options
  const stretch = 1 / (options.rate ?? 1)
  if (pieces.length === 0) return
  let next: Promise<PieceResult> | undefined = run(pieces[0]!)
  let elapsed = 0
  try {
    for (let i = 0; i < pieces.length; i++) {
      const result = await raceAbort(next!, signal)
      next = i + 1 < pieces.length ? run(pieces[i + 1]!) : undefined
      next?.catch(() => {})
      const trimmed = trimSilence(
        result.samples,
        sampleRate,
        (i === 0 ? EDGE : INNER_LEAD) * stretch,
        (i === pieces.length - 1 ? EDGE : INNER_TRAIL) * stretch,
        silenceLevel,
      )
      const duration = trimmed.samples.length / sampleRate
      const shift = elapsed - trimmed.offset
      const clamp = (t: number): number => Math.min(elapsed + duration, Math.max(elapsed, t + shift))
      const words = result.words.map((w) => ({ ...w, start: clamp(w.start), end: clamp(w.end) }))
      elapsed += duration
      const final = i === pieces.length - 1
      if (trimmed.samples.length > 0 || words.length > 0) yield { samples: trimmed.samples, words, ...(final && { final }) }
    }
  } finally {
    next?.catch(() => {})
  }
}
