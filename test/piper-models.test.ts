import { mkdir, mkdtemp, rename, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { loadConfig } from '../src/config/load.js'
import { startServer, type Server } from '../src/server.js'
import { parla } from './helpers/cli.js'
import { freePort } from './helpers/cluster.js'
import { LiveClient } from './helpers/live.js'
import { parseSse, rebuild } from './helpers/sse.js'
import { pcm16 } from './helpers/tts-audio.js'
import { wyomingClient } from './helpers/wyoming-client.js'
import { captureLogs } from './support/log-capture.js'
import { EXTERNAL, SINGLE, TWO, archiveOf, piperVariant, unpackPiper } from './support/piper-packages.js'

/**
 * Piper voices built by rhasspy/piper's own training code and export_onnx.py (test/fixtures/models/piper,
 * scripts/models/piper/build.sh) as a user gets them to Parla: `parla models add` of the release-style archive
 * and of a folder, discovery at start and while the real server runs, then every TTS surface (/v1/tts, SSE with
 * word times, the live socket, OpenAI speech, Wyoming); and broken voices added while it runs answer 409 with
 * what to fix. What each config setting does: test/piper-discovery.test.ts.
 */
const RATE = 24_000
const VOICE = 'neural-en-us-parla-test-medium'
const ALBA = 'neural-en-us-parla-test-2spk-medium-alba'
const NORTHERN = 'neural-en-us-parla-test-2spk-medium-northern'
let root: string
let modelsDir: string
let server: Server
let wyomingPort: number
let auth: { authorization: string }
const logs = captureLogs()
const until = (check: () => Promise<void>) => vi.waitFor(check, { timeout: 120_000, interval: 100 })
const dirFlags = () => ['--models-dir', modelsDir, '--data-dir', join(root, 'cli-data')]

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'parla-piper-models-'))
  modelsDir = join(root, 'models')
  await mkdir(modelsDir)
  const staging = join(root, 'staging')
  await mkdir(staging)
  // As a user installs them: the published archive as it is, and an unpacked voice folder.
  const archive = await parla(['models', 'add', archiveOf(SINGLE), ...dirFlags()])
  expect(archive.stdout.toString(), archive.stderr).toMatch(new RegExp(`^installed ${SINGLE} \\(piper tts, en-us\\)\\nvoices: ${VOICE};`))
  const folder = await parla(['models', 'add', await unpackPiper(staging, TWO), ...dirFlags()])
  expect(folder.stdout.toString(), folder.stderr).toMatch(new RegExp(`^installed ${TWO} \\(piper tts, en-us\\)\\nvoices: ${ALBA},${NORTHERN};`))
  wyomingPort = await freePort()
  const config = loadConfig({ env: {}, file: undefined, flags: { dataDir: join(root, 'data'), modelsDir, port: 0, logLevel: 'info', asrWorkers: 1, festivalProcesses: 1, wyomingPort, wyomingZeroconf: false } })
  server = await startServer(config, { inMemory: true, logger: logs.logger })
  auth = { authorization: `Bearer ${(await server.deps.keys.create('piper')).key}` }
}, 300_000)

afterAll(async () => {
  await server?.drain()
  await rm(root, { recursive: true, force: true })
}, 180_000)

const post = (url: string, body: Record<string, unknown>) =>
  fetch(`${server.address}${url}`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(body) })

async function speak(voice: string, extra: Record<string, unknown> = {}): Promise<Float32Array> {
  const res = await post('/v1/tts', { text: 'Hello world, this is a test.', reference_id: voice, format: 'pcm', sample_rate: RATE, normalize: false, ...extra })
  const body = Buffer.from(await res.arrayBuffer())
  expect(res.status, body.toString()).toBe(200)
  const audio = pcm16(body)
  expect(audio.length).toBeGreaterThan(RATE / 10)
  expect(audio.some((x) => Math.abs(x) > 0.01)).toBe(true)
  return audio
}

/** Moves a voice folder in from beside the models folder, as `parla models add` does. */
async function install(make: (staging: string) => Promise<string>): Promise<void> {
  const staging = await mkdtemp(join(root, 'staging-'))
  const dir = await make(staging)
  await rename(dir, join(modelsDir, dir.slice(staging.length + 1)))
}

describe('Piper voices built by rhasspy/piper\'s own code, through every surface', () => {
  it('found at start: listed trained and speaking on /v1/tts, each speaker of the two-speaker voice, faster at a higher speed', async () => {
    const model = await fetch(`${server.address}/model/${VOICE}`, { headers: auth }).then((r) => r.json())
    expect(model).toMatchObject({ state: 'trained', languages: ['en-us'] })
    // The voice's random duration noise (noise_w) moves each call's length (one call each side gave 0.83 of
    // normal once; three calls each side average about 0.73): three calls each side.
    let normal = 0
    let fast = 0
    for (let i = 0; i < 3; i++) {
      normal += (await speak(VOICE, { prosody: { speed: 1 } })).length
      fast += (await speak(VOICE, { prosody: { speed: 1.8 } })).length
    }
    expect(fast).toBeLessThan(normal * 0.85)
    await speak(ALBA)
    await speak(NORTHERN)
  })

  it('SSE with word times within the audio', async () => {
    const res = await post('/v1/tts/stream/with-timestamp', { text: 'Hello world.', reference_id: VOICE, format: 'pcm', sample_rate: RATE })
    const body = await res.text()
    expect(res.status, body).toBe(200)
    const { audio, words } = rebuild(parseSse(body))
    expect(audio.length).toBeGreaterThan(RATE / 20)
    expect(words.map((w) => w.text)).toEqual(['Hello', 'world'])
    expect(words.at(-1)!.end).toBeLessThanOrEqual(audio.length / 2 / RATE + 0.05)
  })

  it('the live socket speaks text sent word by word', async () => {
    const live = await LiveClient.connect(server.address, auth)
    try {
      const { finish, audio } = await live.speak({ reference_id: ALBA, format: 'pcm', sample_rate: RATE }, 'Hello world, this is a test.')
      expect(finish).toMatchObject({ event: 'finish', reason: 'stop' })
      expect(audio.length).toBeGreaterThan(RATE / 10)
    } finally {
      live.ws.close()
    }
  })

  it('OpenAI speech', async () => {
    const res = await post('/v1/audio/speech', { model: 'tts-1', voice: NORTHERN, input: 'Hello world.', response_format: 'pcm' })
    const body = Buffer.from(await res.arrayBuffer())
    expect(res.status, body.toString()).toBe(200)
    expect(body.length).toBeGreaterThan(RATE / 10)
  })

  it('Wyoming lists the voices and synthesizes with them', async () => {
    const c = await wyomingClient(wyomingPort)
    try {
      c.send('describe')
      const info = await c.next()
      const names = ((info.data.tts as { voices: { name: string }[] }[])[0]!.voices).map((v) => v.name)
      expect(names).toEqual(expect.arrayContaining([VOICE, ALBA, NORTHERN]))
      c.send('synthesize', { text: 'Hello world.', voice: { name: VOICE } })
      const events = await c.until('audio-stop')
      expect(events[0]).toMatchObject({ type: 'audio-start', data: { rate: expect.any(Number), width: 2, channels: 1 } })
      const bytes = events.filter((e) => e.type === 'audio-chunk').reduce((n, e) => n + (e.payload?.length ?? 0), 0)
      expect(bytes).toBeGreaterThan(2 * (events[0]!.data.rate as number) / 10)
    } finally {
      c.close()
    }
  })

  it('added while running: a voice saved with external data is taken in and speaks', async () => {
    await install((staging) => unpackPiper(staging, EXTERNAL))
    const id = 'neural-en-us-parla-test-external-medium'
    await until(async () => expect(await server.deps.models.repo.findById(id)).toMatchObject({ state: 'trained' }))
    await speak(id)
  })

  it('added while running: broken voices answer 409 naming the package and what to fix, never 5xx; `parla models list` says broken and why', async () => {
    await install((staging) => piperVariant(staging, SINGLE, 'piper-no-espeak', (c) => { delete c.espeak }))
    await install((staging) => piperVariant(staging, SINGLE, 'piper-wrong-map', (c) => { (c.phoneme_id_map as Record<string, number[]>)['ʘ'] = [300] }))
    const broken = { 'neural-piper-no-espeak': /piper-no-espeak is broken: .*has no espeak\.voice/, 'neural-piper-wrong-map': /piper-wrong-map is broken: .*phoneme_id_map uses ids up to 300 but the model knows 256/ }
    for (const [voice, reason] of Object.entries(broken)) {
      await until(async () => expect(await server.deps.models.repo.findById(voice)).toMatchObject({ state: 'failed' }))
      const res = await post('/v1/tts', { text: 'Hello world.', reference_id: voice })
      expect(res.status).toBe(409)
      expect(((await res.json()) as { message: string }).message).toMatch(reason)
      const openai = await post('/v1/audio/speech', { model: 'tts-1', voice, input: 'Hello world.' })
      expect(openai.status).toBe(409)
      expect(((await openai.json()) as { error: { message: string } }).error.message).toMatch(reason)
    }
    const list = await parla(['models', 'list', ...dirFlags()])
    const out = list.stdout.toString()
    expect(out).toMatch(/piper-no-espeak\tpiper\ttts\ten-us\t.*\tbroken: .*has no espeak\.voice/)
    expect(out).toMatch(/piper-wrong-map\tpiper\ttts\ten-us\t.*\tbroken: .*phoneme_id_map uses ids up to 300/)
    expect(out).toMatch(new RegExp(`${SINGLE}\\tpiper\\ttts\\ten-us\\t${VOICE}\\tready`))
    // The good voices keep speaking; no runtime process ended on the way.
    await speak(VOICE)
    expect(logs.lines.filter((l) => /runtime process ended/.test(JSON.stringify(l)))).toEqual([])
  })
})
