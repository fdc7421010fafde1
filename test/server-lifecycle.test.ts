import { spawn } from 'node:child_process'
import { EventEmitter } from 'node:events'
import { existsSync, readFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { request } from 'node:http'
import { afterEach, describe, expect, it } from 'vitest'
import { loadConfig } from '../src/config/load.js'
import type { Config } from '../src/config/schema.js'
import { handleSignals, startServer, WATCHDOG_GRACE_SEC, type Server } from '../src/server.js'
import { createFakeAsrEngine, type FakeAsrEngine } from './support/fake-asr-engine.js'
import { createFakeEngine, fakeEngineRegistry, type FakeEngine } from './support/fake-tts-engines.js'
import { captureLogs } from './support/log-capture.js'
import { LiveClient } from './helpers/live.js'

/** Start-up, readiness and shutdown of `src/server.ts`, on fake engines (the lifecycle is plumbing). */
interface Started {
  server: Server
  asr: FakeAsrEngine
  slow: FakeEngine
  auth: { authorization: string }
  url: string
}
const running: Server[] = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.drain()))
})

async function start(settings: Partial<Record<keyof Config, unknown>> = {}): Promise<Started> {
  const config = loadConfig({ env: {}, file: undefined, flags: { dataDir: '/tmp/parla-test-unused', port: 0, logLevel: 'info', ...settings } })
  const asr = createFakeAsrEngine()
  const slow = createFakeEngine('slow', { delayMs: 40 })
  const server = await startServer(config, {
    inMemory: true,
    ttsEngines: fakeEngineRegistry([createFakeEngine('tone'), slow]),
    asrEngine: () => asr,
    logger: captureLogs().logger,
  })
  running.push(server)
  // The built-in voice samples are spoken at start; count only what the test asks for.
  await eventually(() => server.deps.readiness.warming().includes('built-in voice samples')).toBe(false)
  Object.assign(slow.log, { calls: 0, active: 0, stopped: 0, chunks: 0 })
  const { key } = await server.deps.keys.create('test')
  return { server, asr, slow, auth: { authorization: `Bearer ${key}` }, url: server.address }
}

/** A request over a real socket; resolves when the response ends or is cut. */
function call(url: string, path: string, auth: object, payload?: object): Promise<{ status: number; body: string; complete: boolean }> {
  const data = payload ? Buffer.from(JSON.stringify(payload)) : undefined
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, url), {
      method: data ? 'POST' : 'GET',
      headers: { ...auth, ...(data && { 'content-type': 'application/json', 'content-length': data.length }) },
    }, (res) => {
      let body = ''
      res.setEncoding('latin1')
      res.on('data', (c: string) => (body += c))
      const done = () => resolve({ status: res.statusCode!, body, complete: res.complete })
      res.on('end', done)
      res.on('error', done)
    })
    req.on('error', reject)
    req.end(data)
  })
}

/** Polls for an effect; generous, so a busy machine only makes it slower. */
const eventually = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 120_000, interval: 20 })
// English words, so language detection keeps the English voice asked for.
const ENGLISH = 'the cat sat on a mat and then went home to sleep'.split(' ')
const words = (n: number) => Array.from({ length: n }, (_, i) => ENGLISH[i % ENGLISH.length]).join(' ')
const speak = (n: number) => ({ text: words(n), reference_id: 'slow-a', format: 'pcm', latency: 'normal' })

describe('start', () => {
  it('seeds the built-in voices, and /readyz says what is still warming until it is done', async () => {
    const { url, auth, asr } = await start()
    const models = await call(url, '/model?tag=builtin&page_size=50', auth)
    expect(JSON.parse(models.body).items.map((m: { _id: string }) => m._id).sort()).toEqual(['slow-a', 'tone-a'])
    const warming = await call(url, '/readyz', {})
    expect(warming.status).toBe(503)
    expect(JSON.parse(warming.body).warming).toContain('speech recognition')
    asr.finishWarming()
    await eventually(async () => (await call(url, '/readyz', {})).status).toBe(200)
  })
})

describe('drain', () => {
  it('lets a stream under way finish, answers new requests 503, then closes', async () => {
    const { server, url, auth, slow } = await start()
    const stream = call(url, '/v1/tts', auth, speak(10))
    await eventually(() => slow.log.chunks).toBeGreaterThan(0)
    const drained = server.drain()
    expect((await call(url, '/readyz', {}).catch(() => ({ status: 503 }))).status).toBe(503)
    const res = await stream
    expect(res.status).toBe(200)
    expect(res.complete).toBe(true)
    expect(slow.log.chunks).toBe(10)
    await drained
    await expect(call(url, '/healthz', {})).rejects.toThrow()
  })

  it('lets a live utterance finish, then closes the socket with 1012 (reconnect)', async () => {
    const { server, url, auth, slow } = await start()
    const client = await LiveClient.connect(url, auth)
    const utterance = client.speak({ reference_id: 'slow-a', format: 'pcm' }, words(8))
    await eventually(() => slow.log.chunks).toBeGreaterThan(0)
    const drained = server.drain()
    expect((await utterance).finish).toEqual({ event: 'finish', reason: 'stop' })
    expect(await drained).toEqual({ cut: false })
    expect(client.closed?.code).toBe(1012)
  })

  it('cuts what is still running at shutdownTimeoutSec, and stops its engine', async () => {
    const { server, url, auth, slow } = await start({ shutdownTimeoutSec: 0.2 })
    const stream = call(url, '/v1/tts', auth, speak(2000))
    const client = await LiveClient.connect(url, auth)
    client.send({ event: 'start', request: { reference_id: 'slow-a', format: 'pcm', text: words(2000) } })
    await eventually(() => slow.log.active).toBe(2)
    expect(await server.drain()).toEqual({ cut: true })
    expect((await stream).complete).toBe(false)
    expect(client.closed?.code).toBe(1012)
    await eventually(() => slow.log.active).toBe(0)
    expect(slow.log.chunks).toBeLessThan(4000)
  })
})

describe('signals', () => {
  it('exits 0 after draining on the first signal, and at once with 1 on a second; arms the watchdog', async () => {
    const { server, url, auth, slow } = await start()
    const target = Object.assign(new EventEmitter(), { codes: [] as number[], exit: (code: number) => void target.codes.push(code) })
    const watchdogs: [number, number][] = []
    handleSignals(server, target, (afterMs, code) => void watchdogs.push([afterMs, code]))
    const stream = call(url, '/v1/tts', auth, speak(20))
    await eventually(() => slow.log.chunks).toBeGreaterThan(0)
    target.emit('SIGTERM')
    target.emit('SIGINT')
    expect(target.codes).toEqual([1])
    expect(watchdogs).toEqual([[(server.deps.config.shutdownTimeoutSec + WATCHDOG_GRACE_SEC) * 1000, 1]])
    expect(await stream).toMatchObject({ status: 200, complete: true })
    await eventually(() => target.codes).toEqual([1, 0])
  })
})

describe('parla serve: the first key', () => {
  /** A port nobody listens on now (the OS's pick for port 0, released). */
  const freePort = () => new Promise<number>((resolve, reject) => {
    const probe = createServer().once('error', reject).listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number }
      probe.close(() => resolve(port))
    })
  })
  /** One GET /healthz; the status, or 0 when nothing answers yet. */
  const health = (port: number) => new Promise<number>((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/healthz' }, (res) => {
      res.resume()
      resolve(res.statusCode!)
    })
    req.on('error', () => resolve(0))
    req.end()
  })

  it('is in data/api-key when /healthz first answers 200, as a script waiting for health then reading it expects', { timeout: 180_000 }, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'parla-first-key-'))
    const port = await freePort()
    const bin = join(import.meta.dirname, '..', 'bin', 'parla.js')
    const child = spawn(process.execPath, [bin, 'serve', '--host', '127.0.0.1', '--port', String(port), '--data-dir', dir, '--log-level', 'silent'], { stdio: ['ignore', 'pipe', 'inherit'] })
    let printed = ''
    child.stdout.on('data', (b: Buffer) => (printed += b.toString()))
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
    try {
      // Polls back to back, as tightly as a script can: the first 200 is seen as soon as the listener opens.
      let polls = 0
      let keyAtFirst200: boolean | undefined
      while (keyAtFirst200 === undefined && child.exitCode === null) {
        polls++
        if ((await health(port)) === 200) keyAtFirst200 = existsSync(join(dir, 'api-key'))
      }
      expect(keyAtFirst200).toBe(true)
      expect(polls).toBeGreaterThan(1)
      const key = readFileSync(join(dir, 'api-key'), 'utf8').trim()
      expect(key).toMatch(/^parla_/)
      await expect.poll(() => printed, { timeout: 60_000 }).toContain(key)
    } finally {
      child.kill('SIGTERM')
      await exited
      await rm(dir, { recursive: true, force: true })
    }
  })
})
