/**
 * Property-based fuzzing of every surface (see test/fuzz/). Seeded: a failure prints the seed, the path and
 * the shrunk counterexample; `PARLA_FUZZ_SEED=<seed> npx vitest run test/fuzz.test.ts` replays it. Longer
 * searches: `npm run fuzz -- --runs N`.
 */
import fc from 'fast-check'
import { afterAll, beforeAll, describe, it } from 'vitest'
import { startTestServer, type TestServer } from './helpers/app.js'
import { checkStillServing, openConnections, storedState } from './fuzz/invariants.js'
import { allProperties, FUZZ_SERVER_SETTINGS } from './fuzz/surfaces.js'

const SEED = Number(process.env.PARLA_FUZZ_SEED ?? 20261123)

describe('fuzzing (seeded, shrinking)', () => {
  let s: TestServer
  beforeAll(async () => {
    s = await startTestServer(FUZZ_SERVER_SETTINGS)
    await s.listen()
  })
  afterAll(async () => s.close())

  for (const p of allProperties()) {
    it(`${p.name}: ${p.runs} cases, then normal service`, { timeout: 300_000 }, async () => {
      // The surface's own checks run (and close what it opened) whether or not a case failed; a case's failure wins.
      const failure = await fc.assert(p.property(s), { numRuns: p.runs, seed: SEED, verbose: 1 }).then(() => undefined, (err: unknown) => err)
      const after = await p.after?.(s).then(() => undefined, (err: unknown) => err)
      if (failure ?? after) throw failure ?? after
      await checkStillServing(s)
    })
  }

  it('nothing the fuzzing refused was stored: only the fixture model remains', async () => {
    // The in-memory server starts empty (built-in voices are seeded only by `parla serve`).
    const { models } = await storedState(s)
    if (models > 1) throw new Error(`left behind: ${models} models`)
  })

  it('no connection is held open once the fuzzing clients are done', async () => {
    const n = await openConnections(s)
    if (n !== 0) throw new Error(`${n} connections still open`)
  })
})
