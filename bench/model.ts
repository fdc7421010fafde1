/**
 * `npm run bench:model`: read throughput of `GET /model` and `GET /model/{id}` on loopback.
 *
 * The server runs in a child process (its own temp data dir, SQLite file, fs blob store, ~200 models of which
 * a third are public); autocannon drives it from this process with keep-alive connections, so load generator
 * and server do not share an event loop. Env: BENCH_SECONDS (default 10), BENCH_CONNECTIONS (default 20),
 * BENCH_MODELS (default 200), BENCH_LOG_LEVEL (server log level, default warn).
 *
 * `npm run bench:store` runs the same on PostgreSQL (BENCH_DATABASE=postgres): BENCH_DATABASE_URL, or else a
 * throwaway server from Debian's package (test/support/postgres/throwaway.ts), with the database blob store.
 */
import { fork } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import autocannon from 'autocannon'

interface Ready {
  url: string
  key: string
  ids: string[]
  seedSeconds: number
}

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20)
const MODELS = Number(process.env.BENCH_MODELS ?? 200)

if (process.argv.includes('--serve')) await serve(process.argv[process.argv.indexOf('--serve') + 1]!, process.argv[process.argv.indexOf('--serve') + 2] ?? '')
else await main()

async function serve(dataDir: string, databaseUrl: string): Promise<void> {
  const { loadConfig } = await import('../src/config/load.js')
  const { createDeps } = await import('../src/deps.js')
  const { buildApp } = await import('../src/app.js')
  const { voiceWav } = await import('../test/helpers/voice-audio.js')
  const level = process.env.BENCH_LOG_LEVEL ?? 'warn'
  const config = loadConfig({ env: {}, file: undefined, flags: { dataDir, logLevel: level, databaseUrl } })
  const deps = await createDeps(config)
  const app = await buildApp(deps)
  await app.ready() // crash recovery; starts training
  const { key, info } = await deps.keys.create('bench')
  const started = Date.now()
  const wav = voiceWav({ seconds: 1.5 })
  const ids: string[] = []
  for (let i = 0; i < MODELS; i++) {
    const visibility = i % 3 === 0 ? 'public' : i % 3 === 1 ? 'unlist' : 'private'
    const m = await deps.models.create(info.accountId, {
      type: 'tts', title: `Bench voice ${i}`, trainMode: 'fast', visibility, description: `Voice number ${i}`,
      voices: [{ filename: `voice-${i}.wav`, bytes: wav }], texts: ['This is a benchmark voice sample.'], tags: ['bench', `group-${i % 5}`],
      enhanceAudioQuality: true,
    })
    if (visibility === 'public') ids.push(m.id)
  }
  await deps.models.training.idle()
  const url = await app.listen({ host: '127.0.0.1', port: 0 })
  process.send!({ url, key, ids, seedSeconds: (Date.now() - started) / 1000 } satisfies Ready)
  process.on('disconnect', () => void app.close().then(() => deps.close()).then(() => process.exit(0)))
}

async function main(): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), 'parla-bench-'))
  const postgres = process.env.BENCH_DATABASE === 'postgres' && !process.env.BENCH_DATABASE_URL
    ? await (await import('../test/support/postgres/throwaway.js')).startThrowawayPostgres()
    : undefined
  const databaseUrl = process.env.BENCH_DATABASE_URL ?? postgres?.url ?? ''
  console.log(`database: ${databaseUrl ? 'PostgreSQL' : 'SQLite'}`)
  const child = fork(process.argv[1]!, ['--serve', dataDir, databaseUrl], { execArgv: process.execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  try {
    const ready = await new Promise<Ready>((resolve, reject) => {
      child.once('message', (m) => resolve(m as Ready))
      child.once('exit', (code) => reject(new Error(`server exited with ${code}`)))
    })
    console.log(`seeded ${MODELS} models (${ready.ids.length} public) in ${ready.seedSeconds.toFixed(1)} s; ${CONNECTIONS} connections, ${SECONDS} s per run\n`)
    const headers = { authorization: `Bearer ${ready.key}` }
    let n = 0
    const byId = () => `/model/${ready.ids[n++ % ready.ids.length]}`
    const runs = [
      { name: 'GET /model', path: () => '/model' },
      { name: 'GET /model?tag=group-1&sort_by=created_at&page_size=20', path: () => '/model?tag=group-1&sort_by=created_at&page_size=20' },
      { name: 'GET /model/{id}', path: byId },
    ]
    await run(ready.url, headers, () => '/model', 2) // warm-up: JIT, statement caches
    console.log('| endpoint | requests/s | p50 ms | p99 ms | non-2xx |')
    console.log('|---|---|---|---|---|')
    for (const r of runs) {
      const res = await run(ready.url, headers, r.path, SECONDS)
      console.log(`| ${r.name} | ${Math.round(res.requests.average)} | ${res.latency.p50} | ${res.latency.p99} | ${res.non2xx + res.errors} |`)
    }
  } finally {
    child.disconnect()
    await new Promise((r) => child.once('exit', r))
    await rm(dataDir, { recursive: true, force: true })
    await postgres?.stop()
  }
}

function run(url: string, headers: Record<string, string>, path: () => string, duration: number): Promise<autocannon.Result> {
  return autocannon({
    url,
    connections: CONNECTIONS,
    duration,
    headers,
    requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: path() }) }],
  })
}
