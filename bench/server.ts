/**
 * A real Parla server in a child process for the benchmarks, so client and server do not share an event loop.
 * The child is this file run with `--serve <settings json>`: a temp data dir (removed on stop), engines warmed
 * up before the first request, one API key.
 */
import { fork } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

export interface BenchServer {
  readonly url: string
  readonly key: string
  /** The server process (its CPU time is in /proc). */
  readonly pid: number
  /** Stops the server and removes its data. */
  stop(): Promise<void>
}

interface Ready {
  readonly url: string
  readonly key: string
}

/** Starts the server; `settings` are config settings (flags), e.g. `{ festivalProcesses: 2 }`. */
export async function startBenchServer(settings: Record<string, unknown> = {}): Promise<BenchServer> {
  const dataDir = await mkdtemp(join(tmpdir(), 'parla-bench-'))
  const args = ['--serve', JSON.stringify({ ...settings, dataDir })]
  const child = fork(fileURLToPath(import.meta.url), args, { execArgv: process.execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  let stopping = false
  // A server that dies mid-benchmark would otherwise show up as a hang or as odd figures.
  child.once('exit', (code, signal) => {
    if (stopping) return
    console.error(`server exited early (${signal ?? `code ${code}`})`)
    process.exit(1)
  })
  const ready = await new Promise<Ready>((resolve) => child.once('message', (m) => resolve(m as Ready)))
  return {
    ...ready,
    pid: child.pid!,
    async stop() {
      stopping = true
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.disconnect()
      await exited
      await rm(dataDir, { recursive: true, force: true })
    },
  }
}

async function serve(settings: Record<string, unknown>): Promise<void> {
  const { loadConfig } = await import('../src/config/load.js')
  const { createDeps } = await import('../src/deps.js')
  const { buildApp } = await import('../src/app.js')
  const config = loadConfig({ env: {}, file: undefined, flags: { logLevel: 'warn', ...settings } })
  const deps = await createDeps(config)
  const app = await buildApp(deps, { logger: { level: 'warn' } })
  const { key } = await deps.keys.create('bench')
  await deps.speech.engines.startAll()
  const url = await app.listen({ host: '127.0.0.1', port: 0 })
  process.send!({ url, key } satisfies Ready)
  process.on('disconnect', () => void app.close().then(() => deps.close()).then(() => process.exit(0)))
}

if (process.argv[2] === '--serve') await serve(JSON.parse(process.argv[3]!) as Record<string, unknown>)
