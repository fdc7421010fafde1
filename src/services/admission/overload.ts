/**
 * The share of its automatic limits the node grants now. The limits come from a model (cores, measured cost);
 * what the model misses (the server's own encoding, a neighbour taking the cores, a burst's contention) shows
 * as an admitted stream falling behind its listener. Each such report cuts the share (at most once a second);
 * it grows back slowly while nothing falls behind.
 */
export interface OverloadShare {
  /** An admitted stream's audio came after its listener had run out. */
  fellBehind(): void
  /** In [FLOOR, 1]. */
  share(): number
}

const CUT = 0.75
const FLOOR = 0.1
/** Share regained per second without a report: from the floor back to 1 in 45 s. */
const REGAIN_PER_SEC = 0.02
const CUT_INTERVAL_MS = 1000

export function createOverloadShare(now = () => performance.now()): OverloadShare {
  let share = 1
  let at = now()
  let lastCut = -Infinity
  const current = (): number => {
    const t = now()
    share = Math.min(1, share + ((t - at) / 1000) * REGAIN_PER_SEC)
    at = t
    return share
  }
  return {
    fellBehind() {
      const s = current()
      if (at - lastCut < CUT_INTERVAL_MS) return
      lastCut = at
      share = Math.max(FLOOR, s * CUT)
    },
    share: current,
  }
}
