import { EventEmitter } from 'node:events'
import { mkdir, mkdtemp, rename, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { loadConfig } from '../src/config/load.js'
import { handleSignals, startServer, type Server } from '../src/server.js'
import { pcm16 } from './helpers/tts-audio.js'
import { captureLogs } from './support/log-capture.js'
import { writePiperVoice } from './support/neural-models.js'
import { decodeTones, TOKEN_SECONDS } from './support/onnx/tone-vits.js'

/**
 * Model packages added, replaced and removed while `parla serve` runs (the real server start, the real
 * engines and a real folder watcher), with synthetic Piper voices: they are listed, speak and are forgotten
 * without a restart. Each wait is for the effect, however long the machine takes.
 */
let root: string
let server: Server
let auth: { authorization: string }
const logs = captureLogs()
const RATE = 24_000

/** Writes a package beside the folder and renames it in, as `parla models add` does. */
async function install(modelsDir: string, name: string, options: Parameters<typeof writePiperVoice>[2] = {}): Promise<void> {
  const staging = join(modelsDir, '.staging')
  await writePiperVoice(staging, name, options)
  await rename(join(staging, name), join(modelsDir, name))
}

async function start(modelsDir: string): Promise<Server> {
  const config = loadConfig({ env: {}, file: undefined, flags: { dataDir: join(root, 'data'), modelsDir, port: 0, logLevel: 'info', asrWorkers: 1, festivalProcesses: 1 } })
  return startServer(config, { inMemory: true, logger: logs.logger })
}

const model = (id: string) => server.deps.models.repo.findById(id)
const speak = async (voice: string) => {
  const res = await fetch(`${server.address}/v1/tts`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ text: 'Hello world.', reference_id: voice, format: 'pcm', sample_rate: RATE, normalize: false }) })
  return { status: res.status, body: Buffer.from(await res.arrayBuffer()) }
}
const until = (check: () => Promise<void>) => vi.waitFor(check, { timeout: 90_000, interval: 100 })

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'parla-models-hot-'))
  await install(join(root, 'models'), 'en_US-tone-low')
  server = await start(join(root, 'models'))
  auth = { authorization: `Bearer ${(await server.deps.keys.create('hot')).key}` }
}, 180_000)
afterAll(async () => {
  await server?.drain()
  await rm(root, { recursive: true, force: true })
}, 180_000)

describe('model packages while the server runs', () => {
  it('a package added is listed, speaks with each of its speakers, and gets its sample clip', async () => {
    expect(await model('neural-en-us-duo-low-bob')).toBeUndefined()
    await install(join(root, 'models'), 'en_US-duo-low', { speakers: ['ann', 'bob'] })
    await until(async () => expect(await model('neural-en-us-duo-low-bob')).toMatchObject({ state: 'trained', visibility: 'public' }))
    expect(await model('neural-en-us-duo-low-ann')).toBeDefined()
    const { status, body } = await speak('neural-en-us-duo-low-bob')
    expect(status).toBe(200)
    expect(new Set(decodeTones(pcm16(body), RATE, TOKEN_SECONDS * RATE).speakers)).toEqual(new Set([1]))
    await until(async () => expect(await server.deps.blobs.list('models/neural-en-us-duo-low-ann/')).toEqual(['models/neural-en-us-duo-low-ann/sample-0.wav']))
    expect(logs.lines.some((l) => l.msg.startsWith('model packages changed') && JSON.stringify(l.added).includes('neural-en-us-duo-low-ann'))).toBe(true)
  })

  it('a package removed is no longer listed, and asking for its voice is a 404 that says why', async () => {
    expect((await speak('neural-en-us-tone-low')).status).toBe(200)
    await rm(join(root, 'models', 'en_US-tone-low'), { recursive: true })
    await until(async () => expect(await model('neural-en-us-tone-low')).toBeUndefined())
    const { status, body } = await speak('neural-en-us-tone-low')
    expect(status).toBe(404)
    expect(JSON.parse(body.toString())).toEqual({ status: 404, message: expect.stringContaining("'neural-en-us-tone-low' not found") })
    expect(await server.deps.blobs.list('models/neural-en-us-tone-low/')).toEqual([])
  })

  it('a package replaced under the same name is read again: its voices are the new ones', async () => {
    await rm(join(root, 'models', 'en_US-duo-low'), { recursive: true })
    await install(join(root, 'models'), 'en_US-duo-low', { speakers: ['carl', 'dora', 'emma'] })
    await until(async () => expect(await model('neural-en-us-duo-low-emma')).toBeDefined())
    await until(async () => expect(await model('neural-en-us-duo-low-ann')).toBeUndefined())
    const { status, body } = await speak('neural-en-us-duo-low-emma')
    expect(status).toBe(200)
    // The tone model marks a speaker id's parity: emma is speaker 2 of the new package.
    expect(new Set(decodeTones(pcm16(body), RATE, TOKEN_SECONDS * RATE).speakers)).toEqual(new Set([0]))
  })
})

describe('a built-in voice row whose package this node does not have', () => {
  it('is a 404 saying the package is not installed here, not an error (several nodes keep each other\'s rows)', async () => {
    const row = (await model('neural-en-us-duo-low-carl'))!
    await server.deps.models.repo.insertIfAbsent({ ...row, id: 'neural-en-us-elsewhere-low', builtinVoice: 'neural-en-us-elsewhere-low', samples: [] }, [])
    const { status, body } = await speak('neural-en-us-elsewhere-low')
    expect(status).toBe(404)
    expect(JSON.parse(body.toString())).toEqual({ status: 404, message: expect.stringContaining('is a built-in voice whose engine or model package is not installed on this server') })
  })
})

describe('a models folder the server cannot watch', () => {
  it('is looked at again on SIGHUP', async () => {
    // Its parent does not exist at start (a mount that comes later): nothing to watch.
    const later = join(root, 'mount', 'models')
    const other = await start(later)
    try {
      const target = Object.assign(new EventEmitter(), { exit: () => {} })
      handleSignals(other, target)
      await mkdir(later, { recursive: true })
      await writePiperVoice(later, 'en_US-late-low')
      // Nothing takes it in by itself: the server was told of no change.
      expect(await other.deps.models.repo.findById('neural-en-us-late-low')).toBeUndefined()
      target.emit('SIGHUP')
      await until(async () => expect(await other.deps.models.repo.findById('neural-en-us-late-low')).toBeDefined())
    } finally {
      await other.drain()
    }
  })
})
