/**
 * `npm run bench:nodes`: what a request costs on one node versus two nodes on one PostgreSQL (issue 16: "CPU
 * per request equal within 10 %"). Both setups share this machine's cores, so the bench measures cost, not
 * throughput: CPU time (utime + stime, with exited children's, from /proc) of every Parla process (each node and its engine processes)
 * per request, for the same request mix sent through a real nginx in front of one node, then of two.
 *
 * Two nodes start once on a throwaway PostgreSQL (or BENCH_DATABASE_URL, an admin URL: a schema of its own is
 * made and dropped). Rounds alternate one node (nginx → A; only A's processes counted) and two (nginx → A, B;
 * both counted), BENCH_ROUNDS (default 3) of each, so drift in the machine's load hits both alike. Each round
 * sends BENCH_TTS (default 150) `POST /v1/tts` (one sentence, pcm) and BENCH_LIGHT (default 750) light requests
 * (`GET /model`, `GET /wallet/self/api-credit`), BENCH_CLIENTS (default 4) at a time. PostgreSQL's own CPU per
 * request is printed beside it (found by its port), as two nodes may move work into the database.
 */
import { randomBytes } from 'node:crypto'
import { loadavg } from 'node:os'
import pg from 'pg'
import { startNginx, type Nginx } from '../test/helpers/nginx.js'
import { processTable, treeCpuMs } from './proc-cpu.js'
import { startBenchServer, type BenchServer } from './server.js'
import { mean } from './stats.js'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const TTS = Number(process.env.BENCH_TTS ?? 150)
const LIGHT = Number(process.env.BENCH_LIGHT ?? 750)
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 4)

const SENTENCES = [
  'Your package was shipped yesterday and should arrive on Friday.',
  'There are three flights to Berlin this evening, all of them on time.',
  'The weather today looks sunny with a light breeze in the afternoon.',
  'Sure, I can help you with that right away.',
]
const load = () => loadavg().map((x) => x.toFixed(1)).join(' ')

/** Sends the round's requests to `url`, `CLIENTS` at a time; throws on any answer but 200. */
async function sendMix(url: string, key: string): Promise<number> {
  const headers = { authorization: `Bearer ${key}` }
  const jobs: (() => Promise<Response>)[] = []
  const light = (i: number) => () => fetch(`${url}${i % 2 ? '/model?page_size=10' : '/wallet/self/api-credit'}`, { headers })
  // Interleaved, so the clients see the same mix all the time: each TTS request, then its share of light ones.
  for (let i = 0, l = 0; i < TTS; i++) {
    const body = JSON.stringify({ text: SENTENCES[i % SENTENCES.length], format: 'pcm', sample_rate: 16_000 })
    jobs.push(() => fetch(`${url}/v1/tts`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body }))
    for (; l < ((i + 1) * LIGHT) / TTS; l++) jobs.push(light(l))
  }
  let next = 0
  await Promise.all(Array.from({ length: CLIENTS }, async () => {
    while (next < jobs.length) {
      const res = await jobs[next++]!()
      const body = await res.arrayBuffer()
      if (res.status !== 200) throw new Error(`${res.status}: ${Buffer.from(body).subarray(0, 300).toString()}`)
    }
  }))
  return jobs.length
}

async function main(): Promise<void> {
  const postgres = process.env.BENCH_DATABASE_URL ? undefined : await (await import('../test/support/postgres/throwaway.js')).startThrowawayPostgres()
  const admin = process.env.BENCH_DATABASE_URL ?? postgres!.url
  const schema = `bench_${randomBytes(6).toString('hex')}`
  const query = async (text: string) => {
    const client = new pg.Client({ connectionString: admin })
    await client.connect()
    await client.query(text).finally(() => client.end())
  }
  await query(`create schema ${schema}`)
  const url = new URL(admin)
  url.searchParams.set('options', `-c search_path=${schema}`)
  const port = new URL(admin).port
  const nodes: BenchServer[] = []
  const proxies: Nginx[] = []
  try {
    // One festival process per node (the default is one per core): with two nodes on these cores, two each
    // would make the two-node setup hold twice the engine processes for the same work.
    const settings = { databaseUrl: url.toString(), festivalProcesses: 1 }
    nodes.push(await startBenchServer(settings))
    nodes.push(await startBenchServer(settings))
    const [a, b] = nodes as [BenchServer, BenchServer]
    const one = await startNginx([a.url])
    proxies.push(one)
    const two = await startNginx([a.url, b.url])
    proxies.push(two)
    console.log(`load average before: ${load()}`)
    // Warm-up on each node (JIT, statement caches, the engine's first sentences), not measured.
    for (const n of nodes) await sendMix(n.url, a.key)

    const postmaster = [...(processTable())].find(([, s]) => s.cmdline.includes(`-p ${port}`) && /postgres/.test(s.cmdline))?.[0]
    const setups = { one: { lb: one, roots: [a.pid] }, two: { lb: two, roots: [a.pid, b.pid] } }
    const results: Record<'one' | 'two', { parla: number[]; db: number[]; wallSec: number[] }> = {
      one: { parla: [], db: [], wallSec: [] },
      two: { parla: [], db: [], wallSec: [] },
    }
    console.log('| round | nodes | requests | Parla CPU ms / request | PostgreSQL CPU ms / request | wall s | load after |')
    console.log('|---|---|---|---|---|---|---|')
    for (let round = 1; round <= ROUNDS; round++) {
      for (const name of ['one', 'two'] as const) {
        const { lb, roots } = setups[name]
        const before = processTable()
        const t0 = performance.now()
        const sent = await sendMix(lb.url, a.key)
        const wallSec = (performance.now() - t0) / 1000
        const after = processTable()
        const parla = (treeCpuMs(after, roots) - treeCpuMs(before, roots)) / sent
        const db = postmaster ? (treeCpuMs(after, [postmaster]) - treeCpuMs(before, [postmaster])) / sent : NaN
        results[name].parla.push(parla)
        results[name].db.push(db)
        results[name].wallSec.push(wallSec)
        console.log(`| ${round} | ${name === 'one' ? 1 : 2} | ${sent} | ${parla.toFixed(2)} | ${db.toFixed(2)} | ${wallSec.toFixed(1)} | ${load()} |`)
      }
    }
    const [p1, p2] = [mean(results.one.parla), mean(results.two.parla)]
    const [d1, d2] = [mean(results.one.db), mean(results.two.db)]
    console.log(`\nParla CPU per request: one node ${p1.toFixed(2)} ms, two nodes ${p2.toFixed(2)} ms; two / one = ${(p2 / p1).toFixed(3)}`)
    console.log(`PostgreSQL CPU per request: one node ${d1.toFixed(2)} ms, two nodes ${d2.toFixed(2)} ms; two / one = ${(d2 / d1).toFixed(3)}`)
    console.log(`Both together: two / one = ${((p2 + d2) / (p1 + d1)).toFixed(3)}`)
    console.log(`load average after: ${load()}`)
  } finally {
    for (const p of proxies) await p.stop()
    for (const n of nodes) await n.stop()
    await query(`drop schema if exists ${schema} cascade`).catch(() => {})
    await postgres?.stop()
  }
}

await main()
