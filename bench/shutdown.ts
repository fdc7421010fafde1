/**
 * `npm run bench:shutdown`: SIGTERM → exit of a real `parla serve` whose standard output and error go into a
 * pipe read by `cat`, after real work (festival, flite, a neural model), in three cases:
 *  1. the reader present;
 *  2. the reader killed (then a few more requests);
 *  3. the reader stopped (SIGSTOP) with more log than the pipe and the server's 1 MiB hold, and a live utterance
 *     under way that only the deadline ends.
 * Each case prints the exit code and the time from the signal to the exit. Env: BENCH_ROUNDS (default 3),
 * BENCH_DEADLINE (shutdownTimeoutSec, default 2).
 */
import { cpus, loadavg } from 'node:os'
import { flood, NEURAL, serve, stop, stopServeProcesses, unreadStream, utteranceUnderWay, type Serve } from '../test/helpers/serve-process.js'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const DEADLINE_SEC = Number(process.env.BENCH_DEADLINE ?? 2)

async function work(s: Serve): Promise<void> {
  for (const voice of ['festival-slt', 'flite-rms', NEURAL]) {
    const res = await fetch(`${s.url}/v1/tts`, {
      method: 'POST', headers: { ...s.auth, 'content-type': 'application/json' }, body: JSON.stringify({ text: 'Hello there, how are you?', reference_id: voice, format: 'wav' }),
    })
    if (res.status !== 200) throw new Error(`${voice}: ${res.status} ${await res.text()}`)
    await res.arrayBuffer()
  }
}

const cases: Record<string, (s: Serve) => Promise<void>> = {
  'reader present': async () => {},
  'reader killed': async (s) => {
    s.reader.kill('SIGKILL')
    await s.readerExited
    await work(s)
  },
  'reader stopped, stream under way': async (s) => {
    await utteranceUnderWay(s)
    await unreadStream(s)
    s.reader.kill('SIGSTOP')
    await flood(s, 200)
  },
}

console.log(`bench:shutdown: shutdownTimeoutSec ${DEADLINE_SEC}, ${ROUNDS} rounds, ${cpus().length} cores, load ${loadavg().map((l) => l.toFixed(1)).join(' ')}`)
try {
  for (const [name, prepare] of Object.entries(cases)) {
    const times: string[] = []
    for (let i = 0; i < ROUNDS; i++) {
      const s = await serve('cat', 'pipe', DEADLINE_SEC)
      await work(s)
      await prepare(s)
      const exit = await stop(s, (DEADLINE_SEC + 60) * 1000)
      times.push(`${(exit.afterMs / 1000).toFixed(2)} s (exit ${exit.code ?? exit.signal})`)
      await stopServeProcesses()
    }
    console.log(`${name.padEnd(34)} ${times.join(', ')}`)
  }
} finally {
  await stopServeProcesses()
}
console.log(`load after: ${loadavg().map((l) => l.toFixed(1)).join(' ')}`)
