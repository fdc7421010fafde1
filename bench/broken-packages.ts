/**
 * `npm run bench:broken-packages`: does a failing model package slow anyone else? A good Kokoro voice's time to
 * first byte, alone and while other clients request the broken Kokoro packages in a loop (a missing and a
 * short `voices.bin`, a multi-language model without lexicons, and files the runtime refuses to load), on a
 * server in a child process. The packages are the ones the suite builds from hexgrad/kokoro's own code
 * (test/fixtures/models/kokoro). The broken requests come from clients in another process (so their own
 * work does not delay this one's measurements), each sending the next as soon as the last was answered; their
 * statuses are counted: each must be a 409, never a 5xx.
 * Env: BENCH_RUNS (default 20), BENCH_HAMMERS (default 1 client requesting broken voices back to back).
 */
import { fork } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { writeKokoroPackages } from '../test/support/kokoro-packages.js'
import { startBenchServer, type BenchServer } from './server.js'
import { median } from './stats.js'

const RUNS = Number(process.env.BENCH_RUNS ?? 20)
const HAMMERS = Number(process.env.BENCH_HAMMERS ?? 1)
const GOOD = 'neural-kokoro-en-v0-19-af'
const BROKEN = ['neural-kokoro-no-voices-af', 'neural-kokoro-short-voices-af', 'neural-kokoro-no-lexicon-af-alloy', 'neural-kokoro-refused-af']
const load = () => loadavg().map((l) => l.toFixed(2)).join(' ')

const tts = (server: Pick<BenchServer, 'url' | 'key'>, voice: string) => fetch(new URL('/v1/tts', server.url), {
  method: 'POST', headers: { authorization: `Bearer ${server.key}`, 'content-type': 'application/json' },
  body: JSON.stringify({ text: 'Hello world, this is a test.', reference_id: voice, format: 'pcm', sample_rate: 24_000 }),
})

/** The good voice's first byte, `RUNS` times one after the other. */
async function firstBytes(server: BenchServer): Promise<number[]> {
  const out: number[] = []
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now()
    const res = await tts(server, GOOD)
    if (!res.ok) throw new Error(`${GOOD}: HTTP ${res.status} ${await res.text()}`)
    let first = 0
    for await (const _ of res.body as AsyncIterable<Uint8Array>) first ||= performance.now() - t0
    out.push(first)
  }
  return out
}

/** A client in its own process: broken voices back to back until told to stop, then its statuses. */
async function hammer(url: string, key: string, first: number): Promise<void> {
  const statuses: Record<string, number> = {}
  let stop = false
  process.on('message', () => (stop = true))
  for (let i = first; !stop; i++) {
    const res = await tts({ url, key }, BROKEN[i % BROKEN.length]!)
    await res.arrayBuffer()
    statuses[res.status] = (statuses[res.status] ?? 0) + 1
    if (i === first) process.send!('started')
  }
  process.send!(statuses)
  process.disconnect()
}

if (process.argv[2] === '--hammer') {
  await hammer(process.argv[3]!, process.argv[4]!, Number(process.argv[5]))
} else {
  const modelsDir = await mkdtemp(join(tmpdir(), 'parla-bench-broken-'))
  await writeKokoroPackages(modelsDir)
  const server = await startBenchServer({ modelsDir, neuralProcesses: 1, neuralThreads: 1 })
  try {
    // Every package's check and the good voice's model load happen before the first measured call.
    await firstBytes(server)
    console.log(`bench:broken-packages — Kokoro v0.19 (built from hexgrad/kokoro's code) beside ${BROKEN.length} broken packages, ${RUNS} runs, ${HAMMERS} clients on the broken ones, load ${load()}`)
    const alone = await firstBytes(server)
    const children = Array.from({ length: HAMMERS }, (_, k) => fork(fileURLToPath(import.meta.url), ['--hammer', server.url, server.key, String(k)], { execArgv: process.execArgv }))
    // Measured once every client has had its first answer.
    await Promise.all(children.map((c) => new Promise((resolve) => c.once('message', resolve))))
    const beside = await firstBytes(server)
    const counts = await Promise.all(children.map((c) => new Promise<Record<string, number>>((resolve) => {
      c.on('message', (m) => { if (typeof m === 'object') resolve(m as Record<string, number>) })
      c.send('stop')
    })))
    const statuses = new Map<number, number>()
    for (const count of counts) for (const [status, n] of Object.entries(count)) statuses.set(Number(status), (statuses.get(Number(status)) ?? 0) + n)
    const [a, b] = [median(alone), median(beside)]
    console.log(`${GOOD} first byte: alone ${a.toFixed(0)} ms (p50), beside the broken loop ${b.toFixed(0)} ms (p50): ${((b / a - 1) * 100).toFixed(1)} % (target: within 20 %)`)
    console.log(`broken requests meanwhile: ${[...statuses].map(([s, n]) => `${n} × ${s}`).join(', ')}; load after ${load()}`)
  } finally {
    await server.stop()
    await rm(modelsDir, { recursive: true, force: true })
  }
}
