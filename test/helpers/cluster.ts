/**
 * Real Parla nodes for multi-node tests: `bin/parla.js serve` processes on one PostgreSQL, each on a free port
 * with its own (unused) data folder. `stopAll()` kills whatever is left; call it in `afterAll`.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const BIN = fileURLToPath(new URL('../../bin/parla.js', import.meta.url))

export interface Node {
  readonly name: string
  readonly url: string
  readonly child: ChildProcess
  /** What the node printed (its pino log), for failure messages. */
  log(): string
  /** Resolves when the process has exited. */
  readonly exited: Promise<number | null>
}

export async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

export function createCluster(databaseUrl: string) {
  const nodes: Node[] = []
  const dirs: string[] = []

  async function start(name: string, settings: Record<string, string | number> = {}): Promise<Node> {
    const port = await freePort()
    const dataDir = await mkdtemp(join(tmpdir(), `parla-node-${name}-`))
    dirs.push(dataDir)
    // One engine and one ASR process per node: the nodes share the test machine's cores with other test files.
    // Admission limits out of the way (as in `startTestServer`): on a busy machine the measured engine cost
    // would rightly turn some of a test's concurrent streams away, which is not what these tests are about.
    const unlimited = { maxStreams: 100_000, maxStartingStreams: 100_000, asrWaitSec: 3600 }
    const flags = { databaseUrl, port, dataDir, logLevel: 'info', festivalProcesses: 1, asrWorkers: 1, ...unlimited, ...settings }
    const args = Object.entries(flags).flatMap(([k, v]) => [`--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`, String(v)])
    const child = spawn(process.execPath, [BIN, 'serve', ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout!.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-20_000)))
    child.stderr!.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-20_000)))
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
    const node: Node = { name, url: `http://127.0.0.1:${port}`, child, log: () => output, exited }
    nodes.push(node)
    // Listening means seeded and recovered (src/server.ts); generous: a busy machine starts slowly.
    for (let i = 0; ; i++) {
      if (child.exitCode !== null) throw new Error(`node ${name} exited with ${child.exitCode} at start:\n${output}`)
      const ok = await fetch(`${node.url}/healthz`).then((r) => r.ok, () => false)
      if (ok) return node
      if (i > 1500) throw new Error(`node ${name} did not answer /healthz:\n${output}`)
      await new Promise((r) => setTimeout(r, 100))
    }
  }

  return {
    start,
    nodes,
    async stopAll(): Promise<void> {
      for (const n of nodes) if (n.child.exitCode === null && n.child.signalCode === null) n.child.kill('SIGKILL')
      await Promise.all(nodes.map((n) => n.exited))
      await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })))
    },
  }
}
