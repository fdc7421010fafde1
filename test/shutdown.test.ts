import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { mkdtemp, open, readFile, rm } from 'node:fs/promises'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { freePort } from './helpers/cluster.js'
import { LiveClient } from './helpers/live.js'
import { writePiperVoice } from './support/neural-models.js'

/**
 * Real `parla serve` processes whose standard output and error go into a pipe read by a child process (`cat`
 * into a file, or `head -c 1`), driven through every engine and surface, then stopped by signals: they exit
 * within the drain deadline + 5 s whether the log's reader is there, gone or stopped, and a server never ends
 * because its log's reader left. The deadline is the issue's requirement, so it is asserted as one.
 */
const BIN = fileURLToPath(new URL('../bin/parla.js', import.meta.url))
const DEADLINE_SEC = 2
const EXIT_WITHIN_MS = (DEADLINE_SEC + 5) * 1000
const NEURAL = 'neural-en-us-tone-low'

interface Serve {
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
afterEach(async () => {
  for (const { serve, dir } of started.splice(0)) {
    if (serve.child.exitCode === null && serve.child.signalCode === null) serve.child.kill('SIGKILL')
    await serve.exited
    serve.reader.kill('SIGCONT')
    serve.reader.kill('SIGKILL')
    await serve.readerExited
    await rm(dir, { recursive: true, force: true })
  }
})

/**
 * `parla serve … 2>&1 | cat > log` (or `| head -c 1`), answering and with its API key. `via`: a socket pair
 * (what Node's `spawn` makes for `stdio: 'pipe'`, as a client script or a supervisor written in Node gives
 * it) or a pipe (a FIFO, as a shell's `|` gives it).
 */
async function serve(reader: 'cat' | 'head', via: 'socket' | 'pipe' = 'socket'): Promise<Serve> {
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
    port, dataDir: join(dir, 'data'), modelsDir, shutdownTimeoutSec: DEADLINE_SEC, logLevel: 'info', festivalProcesses: 1, asrWorkers: 1,
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

async function speak(s: Serve, body: object): Promise<Buffer> {
  const res = await fetch(`${s.url}/v1/tts`, { method: 'POST', headers: { ...s.auth, 'content-type': 'application/json' }, body: JSON.stringify(body) })
  expect(res.status, await res.clone().text().catch(() => '')).toBe(200)
  return Buffer.from(await res.arrayBuffer())
}

/** Real work on every engine (festival, flite, eSpeak NG, a neural model) and surface (HTTP, SSE, live, ASR). */
async function driveAll(s: Serve): Promise<void> {
  const english = await speak(s, { text: 'Please call Stella and ask her to bring these things.', reference_id: 'festival-slt', format: 'wav' })
  for (const [voice, text] of [['flite-rms', 'Good morning to you.'], ['espeak-ng-de', 'Guten Morgen.'], [NEURAL, 'Hello there.']]) {
    expect((await speak(s, { text, reference_id: voice, format: 'wav' })).length).toBeGreaterThan(1000)
  }
  const sse = await fetch(`${s.url}/v1/tts/stream/with-timestamp`, {
    method: 'POST', headers: { ...s.auth, 'content-type': 'application/json' }, body: JSON.stringify({ text: 'Hello world. How are you?', format: 'mp3' }),
  })
  expect(await sse.text()).toContain('data:')
  const live = await LiveClient.connect(s.url, s.auth)
  expect((await live.speak({ reference_id: 'flite-rms', format: 'pcm' }, 'One more sentence, spoken live.')).finish).toMatchObject({ event: 'finish', reason: 'stop' })
  await live.close()
  const form = new FormData()
  form.append('audio', new Blob([english]), 'english.wav')
  form.append('language', 'en')
  const asr = await fetch(`${s.url}/v1/asr`, { method: 'POST', headers: s.auth, body: form })
  expect(asr.status).toBe(200)
  expect(((await asr.json()) as { text: string }).text.length).toBeGreaterThan(0)
}

/** Requests with long URLs: ~8 KB of log each, so a few fill a pipe nobody reads (64 KiB on Linux). */
async function flood(s: Serve, requests: number): Promise<void> {
  for (let i = 0; i < requests; i++) await fetch(`${s.url}/model?pad=${'x'.repeat(8000)}`, { headers: s.auth }).then((r) => r.arrayBuffer())
}

/** A live utterance under way that never ends by itself (no `stop`): draining has to cut it at the deadline. */
async function utteranceUnderWay(s: Serve): Promise<LiveClient> {
  const live = await LiveClient.connect(s.url, s.auth)
  live.send({ event: 'start', request: { reference_id: 'flite-rms', format: 'pcm', text: '' } })
  live.send({ event: 'text', text: 'This sentence is spoken, and the next one never ends because no stop comes. ' })
  await live.waitFor((r) => r.frame.event === 'audio')
  return live
}

/** Also an HTTP stream under way, its response left unread so that it cannot finish by itself either. */
function unreadStream(s: Serve): Promise<void> {
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

async function droppedLines(s: Serve): Promise<number> {
  const text = await (await fetch(`${s.url}/metrics`, { headers: s.auth })).text()
  const line = text.split('\n').find((l) => l.startsWith('parla_log_lines_dropped_total'))
  return Number(line?.split(' ')[1] ?? NaN)
}

/** Sends `signal`; resolves with the exit and how long after the signal it came. */
async function stop(s: Serve, signal: NodeJS.Signals = 'SIGTERM') {
  const sent = performance.now()
  s.child.kill(signal)
  return within(s)(sent)
}

function within(s: Serve) {
  return async (sent: number) => {
    const timer = new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), EXIT_WITHIN_MS + 2000))
    const exit = await Promise.race([s.exited, timer])
    if (exit === 'still running') return { code: undefined, signal: undefined, afterMs: Infinity }
    return { code: exit.code, signal: exit.signal, afterMs: exit.at - sent }
  }
}

describe('SIGTERM after real work', () => {
  it('exits 0 within the deadline with its log reader present', async () => {
    const s = await serve('cat')
    await driveAll(s)
    const exit = await stop(s)
    expect(exit.code).toBe(0)
    expect(exit.afterMs).toBeLessThan(EXIT_WITHIN_MS)
    expect(await s.log()).toContain('shutting down')
  })

  it('keeps serving when its log reader is killed, and exits 0 within the deadline', async () => {
    const s = await serve('cat', 'pipe')
    await driveAll(s)
    s.reader.kill('SIGKILL')
    await s.readerExited
    await flood(s, 4)
    await driveAll(s)
    expect(s.child.exitCode).toBe(null)
    expect(await droppedLines(s)).toBeGreaterThan(0)
    const exit = await stop(s)
    expect(exit.code).toBe(0)
    expect(exit.afterMs).toBeLessThan(EXIT_WITHIN_MS)
  })

  it.each(['socket', 'pipe'] as const)('exits 1 at the deadline, cutting a stream under way, when its log reader (%s) is stopped', async (via) => {
    const s = await serve('cat', via)
    const live = await utteranceUnderWay(s)
    await unreadStream(s)
    s.reader.kill('SIGSTOP')
    // More log than the pipe holds and the 1 MiB the server keeps for a slow reader; some waits at the signal.
    await flood(s, 200)
    expect(await droppedLines(s)).toBeGreaterThan(0)
    const exit = await stop(s)
    expect(exit.code).toBe(1)
    expect(exit.afterMs).toBeLessThan(EXIT_WITHIN_MS)
    expect(live.closed?.code).toBe(1012)
  })
})

describe('a second signal', () => {
  it('exits 1 at once, without waiting for the stream under way', async () => {
    const s = await serve('cat')
    const live = await utteranceUnderWay(s)
    const sent = performance.now()
    s.child.kill('SIGTERM')
    // Draining has begun (new requests are refused) before the second signal comes.
    await expect.poll(() => fetch(`${s.url}/readyz`).then((r) => r.status, () => 0), { timeout: 60_000, interval: 20 }).not.toBe(200)
    s.child.kill('SIGINT')
    const exit = await within(s)(sent)
    expect(exit.code).toBe(1)
    expect(exit.afterMs).toBeLessThan(EXIT_WITHIN_MS)
    await expect.poll(() => live.closed, { timeout: 10_000 }).toBeDefined()
  })
})

describe('parla serve 2>&1 | head -c 1', () => {
  it('keeps serving after its reader left, counts the dropped log lines, and exits 0 on SIGTERM', async () => {
    const s = await serve('head', 'pipe')
    await s.readerExited
    for (const voice of ['festival-slt', 'flite-rms', 'espeak-ng-en-us']) {
      expect((await speak(s, { text: 'Still here.', reference_id: voice, format: 'wav' })).length).toBeGreaterThan(1000)
    }
    const before = await droppedLines(s)
    expect(before).toBeGreaterThan(0)
    await flood(s, 3)
    expect(await droppedLines(s)).toBeGreaterThan(before)
    const exit = await stop(s)
    expect(exit.code).toBe(0)
    expect(exit.afterMs).toBeLessThan(EXIT_WITHIN_MS)
  })
})
