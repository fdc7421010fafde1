import { describe, expect, it } from 'vitest'
import { DEFAULT_TURN, TurnDetector } from './turn-detector.js'

/** The steps the detector answers for `frames` (1 voiced, 0 not), with the frame index of each. */
function steps(detector: TurnDetector, frames: string): string[] {
  const out: string[] = []
  for (const [i, f] of [...frames].entries()) {
    const step = detector.push(f === '1')
    if (step) out.push(`${step}@${i}`)
  }
  return out
}

describe('turn detector', () => {
  it('says pause after 100 ms of silence in a turn, resume when speech comes back, end after silenceMs', () => {
    const speech = '1'.repeat(30)
    const frames = speech + '0'.repeat(25) + speech + '0'.repeat(60)
    // Start on the 8th voiced frame; pause on the 10th silent one; resume on the voice after it; end on the 50th.
    expect(steps(new TurnDetector(DEFAULT_TURN), frames)).toEqual(['start@7', 'pause@39', 'resume@55', 'pause@94', 'end@134'])
  })

  it('a gap between words is no pause; with a short silenceMs the pause comes at half of it', () => {
    const frames = '1'.repeat(20) + '0'.repeat(8) + '1'.repeat(20) + '0'.repeat(30)
    expect(steps(new TurnDetector(DEFAULT_TURN), frames)).toEqual(['start@7', 'pause@57'])
    expect(steps(new TurnDetector({ ...DEFAULT_TURN, silenceMs: 120 }), frames)).toEqual(['start@7', 'pause@25', 'resume@28', 'pause@53', 'end@59'])
  })
})
