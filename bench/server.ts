/**
 * A real Parla server in a child process for the benchmarks, so client and server do not share an event loop.
 * The child is this file run with `--serve <settings json>`: a temp data dir (removed on stop), engines warmed
 * up before the first request, one API key.
 */
import { fork } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { writeHeapSnapshot } from 'node:v8'

export interface BenchServer {
  readonly url: string
  readonly key: string
  readonly wyomingPort?: number
  /** The server process (its CPU time is in /proc). */
  readonly pid: number
  /** The server process's own `process.memoryUsage()` (asked over its IPC channel). */
  memory(): Promise<NodeJS.MemoryUsage>
  /**
   * Writes a V8 heap snapshot of the server to `path` (`v8.writeHeapSnapshot`, after a full GC); the server
   * answers nothing while it writes, seconds for a heap of 100 MB.
   */
  heapSnapshot(path: string): Promise<void>
  /** Stops the server and removes its data. */
  stop(): Promise<void>
}

interface Ready {
  readonly url: string
  readonly key: string
  /** Set when the server was started with `{ wyoming: true }`. */
  readonly wyomingPort?: number
}

interface HeapSnapshotReply { readonly heapSnapshot: { readonly path: string, readonly error?: string } }

/** What the server starts before its first request: the TTS engines, the ASR decoders, or both. */
export type Warm = 'tts' | 'asr'

/**
 * Starts the server; `settings` are config settings (flags), e.g. `{ festivalProcesses: 2 }`. Engines not
 * warmed start on first use (an ASR benchmark's server never loads the TTS engines).
 */
export async function startBenchServer(
  settings: Record<string, unknown> = {}, warm: readonly Warm[] = ['tts'], options: { wyoming?: boolean } = {},
): Promise<BenchServer> {
  const dataDir = await mkdtemp(join(tmpdir(), 'parla-bench-'))
  const args = ['--serve', JSON.stringify({ settings: { ...settings, dataDir }, warm, wyoming: options.wyoming ?? false })]
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
    memory: () => new Promise((resolve) => {
      const onMessage = (m: unknown) => {
        if (typeof m !== 'object' || m === null || !('memory' in m)) return
        child.off('message', onMessage)
        resolve((m as { memory: NodeJS.MemoryUsage }).memory)
      }
      child.on('message', onMessage)
      child.send('memory')
    }),
    heapSnapshot: (path) => new Promise((resolve, reject) => {
      const onMessage = (m: unknown) => {
        if (typeof m !== 'object' || m === null || !('heapSnapshot' in m)) return
        const { heapSnapshot } = m as HeapSnapshotReply
        if (heapSnapshot.path !== path) return
        child.off('message', onMessage)
        if (heapSnapshot.error) reject(new Error(`heap snapshot ${path}: ${heapSnapshot.error}`))
        else resolve()
      }
      child.on('message', onMessage)
      child.send({ heapSnapshot: path })
    }),
    async stop() {
      stopping = true
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.disconnect()
      await exited
      await rm(dataDir, { recursive: true, force: true })
    },
  }
}

/**
 * The sources the server runs: this checkout's, or `BENCH_SERVER_ROOT`'s (another checkout, e.g. the main
 * branch, to compare a change with the same clients: `BENCH_SERVER_ROOT=/path/to/main npm run bench:admission`).
 */
const source = (path: string): string =>
  process.env.BENCH_SERVER_ROOT ? pathToFileURL(join(process.env.BENCH_SERVER_ROOT, path)).href : new URL(`../${path}`, import.meta.url).href

async function serve({ settings, warm, wyoming }: { settings: Record<string, unknown>, warm: Warm[], wyoming: boolean }): Promise<void> {
  // As `parla` does on start.
  const { tuneMalloc } = await import(source('src/malloc-tuning.js')) as typeof import('../src/malloc-tuning.js')
  tuneMalloc()
  const { loadConfig } = await import(source('src/config/load.js')) as typeof import('../src/config/load.js')
  const { createDeps } = await import(source('src/deps.js')) as typeof import('../src/deps.js')
  const { buildApp } = await import(source('src/app.js')) as typeof import('../src/app.js')
  const config = loadConfig({ env: {}, file: undefined, flags: { logLevel: 'warn', ...settings } })
  const deps = await createDeps(config)
  const app = await buildApp(deps)
  const { key } = await deps.keys.create('bench')
  if (warm.includes('tts')) await deps.speech.engines.startAll()
  if (warm.includes('asr')) await deps.asr.warm()
  const url = await app.listen({ host: '127.0.0.1', port: 0 })
  const { startWyomingServer } = await import(source('src/api/wyoming/server.js')) as typeof import('../src/api/wyoming/server.js')
  const wy = wyoming ? await startWyomingServer(deps, { host: '127.0.0.1', port: 0, log: app.log }) : undefined
  process.send!({ url, key, ...(wy && { wyomingPort: wy.port }) } satisfies Ready)
  process.on('message', (m) => {
    if (m === 'memory') process.send!({ memory: process.memoryUsage() })
    if (typeof m === 'object' && m !== null && 'heapSnapshot' in m) {
      const path = (m as { heapSnapshot: string }).heapSnapshot
      let error: string | undefined
      try {
        writeHeapSnapshot(path)
      } catch (e) {
        error = (e as Error).message
      }
      process.send!({ heapSnapshot: { path, ...(error !== undefined && { error }) } } satisfies HeapSnapshotReply)
    }
  })
  process.on('disconnect', () => void (wy?.close() ?? Promise.resolve()).then(() => app.close()).then(() => deps.close()).then(() => process.exit(0)))
}

/** Resident memory of process `pid` now and at its peak, in MB (Linux /proc). */
export function processMemory(pid: number): { rssMb: number, peakMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN)
  return { rssMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024 }
}

/** Starts a new peak-RSS window for process `pid` (needs to own it or be root; Linux ≥ 4.0). */
export function resetPeakMemory(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, '5')
}

if (process.argv[2] === '--serve') await serve(JSON.parse(process.argv[3]!) as { settings: Record<string, unknown>, warm: Warm[], wyoming: boolean })
