import { describe, expect, it } from 'vitest'
import type { PoolLoad } from '../../engines/tts/pool.js'
import type { TtsEngine } from '../../engines/tts/types.js'
import { createEngineCost } from './engine-cost.js'

/** An engine whose pool reports `busySec` as the test sets it. */
const engine = (id: string, pool: { busySec: number }) =>
  ({ id, load: (): PoolLoad => ({ size: 2, busy: 0, queued: 0, busySec: pool.busySec }) }) as unknown as TtsEngine

describe('engine cost', () => {
  it('is worker time per second of speech over each window, ignoring time held for no speech', () => {
    let now = 0
    const pool = { busySec: 0 }
    const cost = createEngineCost(() => [engine('flite', pool)], () => now)
    expect(cost.perAudioSec()).toBeUndefined()
    // Warm-up holds workers and speaks to nobody: not a cost of speech.
    pool.busySec = 5
    now += 3000
    expect(cost.perAudioSec()).toBeUndefined()
    // 10 s of speech for 0.5 s of worker time.
    pool.busySec = 5.5
    cost.record('flite', 10)
    now += 3000
    expect(cost.perAudioSec()).toBeCloseTo(0.05)
    expect(cost.byEngine().get('flite')).toBeCloseTo(0.05)
    // A busier machine: the same speech holds workers longer; the estimate moves towards it.
    pool.busySec = 7.5
    cost.record('flite', 10)
    now += 3000
    expect(cost.perAudioSec()).toBeCloseTo(0.05 + 0.3 * (0.2 - 0.05))
  })

  it('waits for enough speech before a new figure, and only re-samples after a window', () => {
    let now = 0
    const pool = { busySec: 0 }
    const cost = createEngineCost(() => [engine('festival', pool)], () => now)
    cost.perAudioSec()
    pool.busySec = 0.1
    cost.record('festival', 0.5)
    now += 3000
    expect(cost.perAudioSec()).toBeUndefined()
    cost.record('festival', 0.5)
    pool.busySec = 0.2
    expect(cost.perAudioSec()).toBeUndefined() // same window
    now += 3000
    expect(cost.perAudioSec()).toBeCloseTo(0.2)
  })
})

describe('work per character', () => {
  it("is a character's seconds of speech times the measured cost, or the default cost before any was measured", async () => {
    const { workPerChar, AUDIO_SEC_PER_CHAR } = await import('./engine-cost.js')
    const { DEFAULT_COST } = await import('./limits.js')
    expect(workPerChar(0.5)).toBeCloseTo(0.5 * AUDIO_SEC_PER_CHAR)
    expect(workPerChar(undefined)).toBeCloseTo(DEFAULT_COST * AUDIO_SEC_PER_CHAR)
  })
})
