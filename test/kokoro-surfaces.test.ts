import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startWyomingServer, type WyomingServer } from '../src/api/wyoming/server.js'
import { loadConfig } from '../src/config/load.js'
import { startServer, type Server } from '../src/server.js'
import { parla } from './helpers/cli.js'
import { LiveClient } from './helpers/live.js'
import { pcm16 } from './helpers/tts-audio.js'
import { wyomingClient } from './helpers/wyoming-client.js'
import { FIXTURES, V019, V10 } from './support/kokoro-packages.js'

/**
 * The Kokoro packages built from the upstream code (test/fixtures/models/kokoro) on the surfaces test/kokoro.test.ts
 * leaves out: added with `parla models add` to the models folder of a running server (the real start and folder
 * watch), then spoken over the live socket and Wyoming, both layouts, both languages of the multi-language one.
 */
const RATE = 24_000
const VOICES = [
  ['neural-kokoro-en-v0-19-am-adam', 'Hello world, this is a test.'],
  ['neural-kokoro-multi-lang-v1-0-af-alloy', 'Good morning, this is a test.'],
  ['neural-kokoro-multi-lang-v1-0-zf-xiaobei', '你好世界。我们测试语音。'],
] as const

let root: string
let modelsDir: string
let server: Server
let auth: { authorization: string }
let wyoming: WyomingServer

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'parla-kokoro-surfaces-'))
  modelsDir = join(root, 'models')
  const config = loadConfig({ env: {}, file: undefined, flags: { dataDir: join(root, 'data'), modelsDir, port: 0, logLevel: 'silent', asrWorkers: 1, festivalProcesses: 1 } })
  server = await startServer(config, { inMemory: true })
  auth = { authorization: `Bearer ${(await server.deps.keys.create('kokoro')).key}` }
  wyoming = await startWyomingServer(server.deps, { host: '127.0.0.1', port: 0, log: server.app.log })
}, 180_000)

afterAll(async () => {
  await wyoming?.close()
  await server?.drain()
  await rm(root, { recursive: true, force: true })
}, 180_000)

const listed = async (voice: string) => (await fetch(`${server.address}/model/${voice}`, { headers: auth })).status === 200

describe('Kokoro packages added while the server runs', () => {
  it('`parla models add` of both layouts: the running server lists their voices without a restart', async () => {
    for (const [voice] of VOICES) expect(await listed(voice)).toBe(false)
    for (const name of [V019, V10]) {
      const run = await parla(['models', 'add', join(FIXTURES, name), '--models-dir', modelsDir])
      expect(run.code, run.stderr).toBe(0)
    }
    // The folder watch takes them in; waited for by effect, however long a busy machine takes.
    for (const [voice] of VOICES) while (!await listed(voice)) await new Promise((r) => setTimeout(r, 200))
  })

  it.each(VOICES)('the live socket speaks %s', async (voice, text) => {
    const c = await LiveClient.connect(server.address, auth)
    try {
      const { finish, audio } = await c.speak({ format: 'pcm', sample_rate: RATE, reference_id: voice }, text)
      expect(finish).toEqual({ event: 'finish', reason: 'stop' })
      const samples = pcm16(audio)
      expect(samples.length).toBeGreaterThan(RATE / 10)
      expect(samples.some((x) => Math.abs(x) > 0.01)).toBe(true)
    } finally {
      await c.close()
    }
  })

  it.each(VOICES)('Wyoming synthesize speaks %s', async (voice, text) => {
    const c = await wyomingClient(wyoming.port)
    try {
      c.send('synthesize', { text, voice: { name: voice } })
      const events = await c.until('audio-stop')
      expect(events[0]).toMatchObject({ type: 'audio-start', data: { rate: expect.any(Number), width: 2, channels: 1 } })
      const bytes = events.filter((e) => e.type === 'audio-chunk').reduce((n, e) => n + (e.payload?.length ?? 0), 0)
      expect(bytes / 2).toBeGreaterThan(Number(events[0]!.data.rate) / 10)
    } finally {
      c.close()
    }
  })
})
