import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { stressFlite } from '../../../../bench/flite-stress.js'
import { createFliteEngine, type FliteEngine } from './index.js'

/**
 * The suite's share of `npm run stress:flite` (thousands of runs; figures in docs/benchmarks.md). flite once
 * ran each sentence in a fresh node:wasi instance and took the whole process down (SIGABRT/SIGSEGV) within
 * a few hundred such runs under load; this runs 240 in the test worker's process.
 */
let engine: FliteEngine
beforeAll(async () => {
  engine = await createFliteEngine({ processes: 2 })
})
afterAll(() => engine?.close())

describe('flite under stress', () => {
  it('runs 240 syntheses, all voices, 12 at a time, a tenth aborted: no crash, no failure, identical repeats',
    { timeout: 240_000 }, async () => {
      const result = await stressFlite(engine, { runs: 240, concurrency: 12, seed: 7, abortShare: 0.1 })
      expect(result.failures).toEqual([])
      expect(result.completed + result.aborted).toBe(240)
      // Some aborts land before the work is done (the rest are cut short or come too late to matter).
      expect(result.aborted).toBeGreaterThan(0)
      // Aborted runs terminate their worker; the pool has replaced them.
      for (let i = 0; i < 100 && engine.workers().all < 2; i++) await new Promise((r) => setTimeout(r, 50))
      expect(engine.workers()).toEqual({ all: 2, busy: 0 })
    })
})
