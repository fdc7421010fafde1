/** Cutting an over-long speech region at its pauses; units are VAD frames, ends exclusive. */

export interface FrameSpan {
  readonly start: number
  readonly end: number
}

/** A stretch of speech and the short pauses (bridged by the VAD) inside it. */
export interface Region extends FrameSpan {
  readonly gaps: readonly FrameSpan[]
}

/**
 * Splits `region` into pieces of at most `maxFrames`, each cut in the middle of the longest pause that keeps
 * the piece within bounds (later pauses win ties, so pieces stay long). Without any pause it cuts hard at
 * `maxFrames`: rare in speech, and the decoder copes with a cut word better than with a too-long utterance.
 */
export function splitLongRegion(region: Region, maxFrames: number): Region[] {
  const pieces: Region[] = []
  let start = region.start
  let gaps = region.gaps
  while (region.end - start > maxFrames) {
    const limit = start + maxFrames
    // Prefer pauses in the second half of the window so pieces do not come out needlessly short.
    const best = longestGap(gaps, start + maxFrames / 2, limit) ?? longestGap(gaps, start + 1, limit)
    const cutEnd = best ? best.start : limit
    const nextStart = best ? best.end : limit
    pieces.push({ start, end: cutEnd, gaps: gaps.filter((g) => g.end <= cutEnd) })
    start = nextStart
    gaps = gaps.filter((g) => g.start >= nextStart)
  }
  pieces.push({ start, end: region.end, gaps })
  return pieces
}

/** The longest gap starting within [from, to]; the later one on ties. Cutting there ends a piece at g.start. */
function longestGap(gaps: readonly FrameSpan[], from: number, to: number): FrameSpan | undefined {
  let best: FrameSpan | undefined
  for (const g of gaps) {
    if (g.start < from || g.start > to) continue
    if (!best || g.end - g.start >= best.end - best.start) best = g
  }
  return best
}
