/**
 * Real `parla serve` processes whose standard output and error go into a pipe read by a child process (`cat`
 * into a file, or `head -c 1`), for the shutdown test and `npm run bench:shutdown`. `stopServeProcesses()`
 * kills whatever is left (afterEach / the end of a bench).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { mkdtemp, open, readFile, rm } from 'node:fs/promises'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { freePort } from './cluster.js'
import { LiveClient } from './live.js'
import { writePiperVoice } from '../support/neural-models.js'

const BIN = fileURLToPath(new URL('../../bin/parla.js', import.meta.url))
/** The neural voice every server has (a tone model, test/support/neural-models.ts). */
export const NEURAL = 'neural-en-us-tone-low'

export interface Serve {
  readonly child: ChildProcess
  readonly reader: ChildProcess
  readonly url: string
  readonly auth: Record<string, string>
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>
  readonly readerExited: Promise<void>
  /** What `cat` wrote (empty for `head`). */
  log(): Promise<string>
}

const started: { serve: Serve; dir: string }[] = []

export async function stopServeProcesses(): Promise<void> {
  for (const { serve, dir } of started.splice(0)) {
    if (serve.child.exitCode === null && serve.child.signalCode === null) serve.child.kill('SIGKILL')
    await serve.exited
    serve.reader.kill('SIGCONT')
    serve.reader.kill('SIGKILL')
    await serve.readerExited
    await rm(dir, { recursive: true, force: true })
  }
}

/**
 * `parla serve … 2>&1 | cat > log` (or `| head -c 1`), answering and with its API key. `via`: a socket pair
 * (what Node's `spawn` makes for `stdio: 'pipe'`, as a client script or a supervisor written in Node gives
 * it) or a pipe (a FIFO, as a shell's `|` gives it).
 */
export async function serve(reader: 'cat' | 'head', via: 'socket' | 'pipe', deadlineSec: number): Promise<Serve> {
  const dir = await mkdtemp(join(tmpdir(), 'parla-shutdown-'))
  const modelsDir = join(dir, 'models')
  await writePiperVoice(modelsDir, 'en_US-tone-low')
  const logFile = join(dir, 'log')
  const out = await open(logFile, 'w')
  const fifo = join(dir, 'fifo')
  if (via === 'pipe') execFileSync('mkfifo', [fifo])
  const input = via === 'pipe' ? [fifo] : []
  const readerProc = reader === 'cat'
    ? spawn('cat', input, { stdio: [via === 'pipe' ? 'ignore' : 'pipe', out.fd, 'ignore'] })
    : spawn('head', ['-c', '1', ...input], { stdio: [via === 'pipe' ? 'ignore' : 'pipe', 'ignore', 'ignore'] })
  await out.close()
  const readerExited = new Promise<void>((resolve) => readerProc.on('exit', () => resolve()))
  // Opening a FIFO for writing waits for its reader, started above.
  const writer = via === 'pipe' ? await open(fifo, 'w') : undefined
  const port = await freePort()
  const flags = {
    port, dataDir: join(dir, 'data'), modelsDir, shutdownTimeoutSec: deadlineSec, logLevel: 'info', festivalProcesses: 1, asrWorkers: 1,
    maxStreams: 100_000, maxStartingStreams: 100_000, asrWaitSec: 3600,
  }
  const args = Object.entries(flags).flatMap(([k, v]) => [`--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`, String(v)])
  // The writing end goes to the server alone (this process closes its copy), as in a shell pipeline.
  const end = writer?.fd ?? readerProc.stdin!
  const child = spawn(process.execPath, [BIN, 'serve', ...args], { stdio: ['ignore', end, end] })
  await writer?.close()
  readerProc.stdin?.destroy()
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal, at: performance.now() })))
  const s: Serve = { child, reader: readerProc, url: `http://127.0.0.1:${port}`, auth: {}, exited, readerExited, log: () => readFile(logFile, 'utf8') }
  started.push({ serve: s, dir })
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`parla serve exited with ${child.exitCode} at start:\n${await s.log()}`)
    const key = await readFile(join(dir, 'data', 'api-key'), 'utf8').catch(() => '')
    const up = key !== '' && (await fetch(`${s.url}/healthz`).then((r) => r.ok, () => false))
    if (up) return { ...s, auth: { authorization: `Bearer ${key.trim()}` } }
    if (i > 1500) throw new Error(`parla serve did not answer:\n${await s.log()}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

/** Requests with long URLs: ~8 KB of log each, so a few fill a pipe nobody reads (64 KiB on Linux). */
export async function flood(s: Serve, requests: number): Promise<void> {
  for (let i = 0; i < requests; i++) await fetch(`${s.url}/model?pad=${'x'.repeat(8000)}`, { headers: s.auth }).then((r) => r.arrayBuffer())
}

/** A live utterance under way that never ends by itself (no `stop`): draining has to cut it at the deadline. */
export async function utteranceUnderWay(s: Serve): Promise<LiveClient> {
  const live = await LiveClient.connect(s.url, s.auth)
  live.send({ event: 'start', request: { reference_id: 'flite-rms', format: 'pcm', text: '' } })
  live.send({ event: 'text', text: 'This sentence is spoken, and the next one never ends because no stop comes. ' })
  await live.waitFor((r) => r.frame.event === 'audio')
  return live
}

/** Also an HTTP stream under way, its response left unread so that it cannot finish by itself either. */
export function unreadStream(s: Serve): Promise<void> {
  return new Promise((resolve) => {
    const body = JSON.stringify({ text: 'the cat sat on a mat and then went home to sleep. '.repeat(400), reference_id: 'flite-rms', format: 'pcm' })
    const req = request(`${s.url}/v1/tts`, { method: 'POST', headers: { ...s.auth, 'content-type': 'application/json' } }, (res) => {
      res.pause()
      res.on('error', () => {})
      resolve()
    })
    req.on('error', () => {})
    req.end(body)
  })
}

export async function droppedLines(s: Serve): Promise<number> {
  const text = await (await fetch(`${s.url}/metrics`, { headers: s.auth })).text()
  const line = text.split('\n').find((l) => l.startsWith('parla_log_lines_dropped_total'))
  return Number(line?.split(' ')[1] ?? NaN)
}

/** Sends `signal`; resolves with the exit and how long after the signal it came. */
export async function stop(s: Serve, waitMs: number, signal: NodeJS.Signals = 'SIGTERM') {
  const sent = performance.now()
  s.child.kill(signal)
  return within(s, waitMs)(sent)
}

/** The exit, and how long after `sent` it came; `afterMs` Infinity if it had not come within `waitMs`. */
export function within(s: Serve, waitMs: number) {
  return async (sent: number) => {
    const timer = new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), waitMs))
    const exit = await Promise.race([s.exited, timer])
    if (exit === 'still running') return { code: undefined, signal: undefined, afterMs: Infinity }
    return { code: exit.code, signal: exit.signal, afterMs: exit.at - sent }
  }
}
