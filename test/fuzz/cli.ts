/**
 * Long fuzzing runs: `npm run fuzz -- --runs N [--seed S] [--only <name part>[,<name part>…]]`. Runs every property of every
 * surface N times against one in-memory server, then checks normal service and leftovers; prints a summary
 * line per property and a Markdown row for docs/benchmarks.md. A failure prints the seed, path and shrunk
 * counterexample (replay: same --seed, or PARLA_FUZZ_SEED with the test suite) and exits 1.
 */
import { loadavg } from 'node:os'
import { parseArgs } from 'node:util'
import fc from 'fast-check'
import { startTestServer } from '../helpers/app.js'
import { checkStillServing, openConnections, storedState } from './invariants.js'
import { allProperties, FUZZ_SERVER_SETTINGS } from './surfaces.js'

const { values } = parseArgs({ options: { runs: { type: 'string', default: '1000' }, seed: { type: 'string' }, only: { type: 'string' } } })
const runs = Number(values.runs)
const seed = values.seed === undefined ? Date.now() % 2 ** 31 : Number(values.seed)
/** Shutdown waits at most: live sockets' closing handshakes (30 s in ws) and training's 10 s, with room. */
const CLOSE_LIMIT_MS = 60_000
const s = await startTestServer(FUZZ_SERVER_SETTINGS)
await s.listen()
const began = performance.now()
let failed = false
let cases = 0
// `--only a,b`: the properties whose names contain any of the parts, in their usual order.
const only = values.only?.split(',')
for (const p of allProperties().filter((q) => !only || only.some((part) => q.name.includes(part)))) {
  const from = performance.now()
  const result = await fc.check(p.property(s), { numRuns: runs, seed })
  const after = await p.after?.(s).then(() => undefined, (err: unknown) => err)
  if (after) {
    failed = true
    process.stdout.write(`FAIL ${p.name} afterwards: ${String(after)}\n`)
  }
  cases += result.numRuns
  const sec = ((performance.now() - from) / 1000).toFixed(1)
  if (result.failed) {
    failed = true
    // The report names the counterexample; the error says what the oracle saw in the answer.
    const error = result.errorInstance instanceof Error ? result.errorInstance.message : String(result.errorInstance)
    process.stdout.write(`FAIL ${p.name} after ${result.numRuns} cases (${sec} s)\n${fc.defaultReportMessage(result)}\nError: ${error}\n`)
  } else process.stdout.write(`ok   ${p.name}: ${result.numRuns} cases, ${sec} s\n`)
  await checkStillServing(s)
}
const { models, blobs } = await storedState(s)
const open = await openConnections(s)
if (open !== 0) failed = true
const total = ((performance.now() - began) / 1000).toFixed(0)
process.stdout.write(`\n${cases} cases, seed ${seed}, ${total} s; stored afterwards: ${models} models, ${blobs} blobs; open connections: ${open}; ${failed ? 'FAILURES' : 'no failures'}\n`)
process.stdout.write(`| ${new Date().toISOString().slice(0, 10)} | \`npm run fuzz -- --runs ${runs} --seed ${seed}\` | ${cases} | ${total} s | ${failed ? 'failures' : 'none'} | ${loadavg().map((l) => l.toFixed(2)).join(' ')} |\n`)
await closeWithin(CLOSE_LIMIT_MS)
process.exit(failed ? 1 : 0)

/**
 * Closes the server, or says what is still open once `ms` have passed and exits 1: a run that printed its
 * summary must end (a shutdown that hangs is itself a finding, reported rather than waited on forever).
 */
async function closeWithin(ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), ms)))
  const outcome = await Promise.race([s.close().then(() => 'closed' as const), late])
  clearTimeout(timer)
  if (outcome === 'closed') return
  process.stderr.write(`server shutdown did not finish within ${ms / 1000} s; still active: ${process.getActiveResourcesInfo().join(', ')}\n`)
  process.exit(1)
}
