import { availableParallelism } from 'node:os'
import { describe, expect, it } from 'vitest'
import { startTestServer } from './helpers/app.js'

/** The ASR settings reach the service: how many requests are decoded and transcribed at once. */
describe('ASR settings', () => {
  it('admits one request per decoder worker by default, asrConcurrency when set', async () => {
    for (const [settings, limit] of [
      [{}, availableParallelism()],
      [{ asrWorkers: 3 }, 3],
      [{ asrWorkers: 3, asrConcurrency: 1 }, 1],
    ] as const) {
      const s = await startTestServer(settings)
      try {
        expect(s.deps.asr.load, JSON.stringify(settings)).toEqual({ active: 0, waiting: 0, limit })
      } finally {
        await s.close()
      }
    }
  })
})
