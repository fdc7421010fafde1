import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { cp, mkdtemp, rm, stat, truncate, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { loadConfig } from '../src/config/load.js'
import { NeuralHost } from '../src/engines/neural/host.js'
import { createNeuralEngine } from '../src/engines/tts/neural/index.js'
import { metadataBytes, readOnnxMetadata } from '../src/models/onnx-metadata.js'
import { startServer, type Server } from '../src/server.js'
import { captureLogs } from './support/log-capture.js'
import { FIXTURES, V019 } from './support/kokoro-packages.js'
import { writeNemoCtc } from './support/neural-models.js'
import { whisperSpeech } from './support/onnx/tone-whisper.js'
import { asrEngineFromSettings } from '../src/engines/asr/neural/from-config.js'

/**
 * Every model package is loaded once, when it is found, in a throwaway runtime process: with the real
 * server start and the Kokoro packages built from the upstream code (test/fixtures/models/kokoro), and bad
 * variants made from them. Broken packages say so before anyone asks, never answer 5xx, never end a serving
 * process, and cost the good voices nothing; a serving process that dies anyway is replaced and said.
 */
const RATE = 24_000
const parla = fileURLToPath(new URL('../bin/parla.js', import.meta.url))
const run = promisify(execFile)

let root: string
let modelsDir: string
let server: Server
let auth: { authorization: string }
const logs = captureLogs()
/** Every model load in a runtime process, check or serving, by package. */
const loads: string[] = []
/** Packages the runtime was asked to speak with. */
const spoken: string[] = []
/** Set by a test: ends the serving process that is asked to speak with this package. */
let killOnSynth: string | undefined

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'parla-model-checks-'))
  modelsDir = join(root, 'models')
  await cp(join(FIXTURES, V019), join(modelsDir, 'kokoro-good'), { recursive: true })
  await cp(join(FIXTURES, V019), join(modelsDir, 'kokoro-dies'), { recursive: true })
  await writeBadVariants(modelsDir)
  const load = NeuralHost.prototype.load
  vi.spyOn(NeuralHost.prototype, 'load').mockImplementation(function (this: NeuralHost, key, config, threads) {
    loads.push(key)
    return load.call(this, key, config, threads)
  })
  const synthesize = NeuralHost.prototype.synthesize
  vi.spyOn(NeuralHost.prototype, 'synthesize').mockImplementation(async function* (this: NeuralHost, call, signal) {
    spoken.push(call.key)
    if (killOnSynth === call.key) {
      // Stopped first, so the runtime cannot finish before it is ended: the process dies with the call under way.
      process.kill(this.pid!, 'SIGSTOP')
      setImmediate(() => process.kill(this.pid!, 'SIGKILL'))
    }
    yield* synthesize.call(this, call, signal)
  })
  const config = loadConfig({ env: {}, file: undefined, flags: { dataDir: join(root, 'data'), modelsDir, port: 0, logLevel: 'info', asrWorkers: 1, festivalProcesses: 1, neuralProcesses: 2, neuralThreads: 1 } })
  server = await startServer(config, { inMemory: true, logger: logs.logger })
  auth = { authorization: `Bearer ${(await server.deps.keys.create('checks')).key}` }
}, 180_000)

afterAll(async () => {
  await server?.drain()
  vi.restoreAllMocks()
  await rm(root, { recursive: true, force: true })
}, 180_000)

/** A model file cut in half, one of random bytes, and one the runtime refuses although its metadata is whole. */
async function writeBadVariants(dir: string): Promise<void> {
  const model = join(FIXTURES, V019, 'model.onnx')
  const { size } = await stat(model)
  await cp(join(FIXTURES, V019), join(dir, 'kokoro-truncated'), { recursive: true })
  await truncate(join(dir, 'kokoro-truncated', 'model.onnx'), Math.floor(size / 2))
  await cp(join(FIXTURES, V019), join(dir, 'kokoro-garbage'), { recursive: true })
  await writeFile(join(dir, 'kokoro-garbage', 'model.onnx'), randomBytes(size))
  await cp(join(FIXTURES, V019), join(dir, 'kokoro-refused'), { recursive: true })
  await writeFile(join(dir, 'kokoro-refused', 'model.onnx'), metadataBytes(await readOnnxMetadata(model)))
}

const tts = async (voice: string) => {
  const res = await fetch(`${server.address}/v1/tts`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ text: 'Hello world.', reference_id: voice, format: 'pcm', sample_rate: RATE, normalize: false }) })
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: Buffer.from(await res.arrayBuffer()) }
}
const model = async (id: string) => (await fetch(`${server.address}/model/${id}`, { headers: auth })).json() as Promise<{ state: string; state_reason: string }>
const exits = async () => Number(/^parla_neural_process_exits_total (\d+)$/m.exec(await (await fetch(`${server.address}/metrics`)).text())![1])
const until = (check: () => Promise<void>) => vi.waitFor(check, { timeout: 120_000, interval: 100 })
const cli = async (...args: string[]) => (await run(process.execPath, [parla, 'models', ...args, '--models-dir', modelsDir, '--data-dir', join(root, 'data')])).stdout

describe('a package is loaded once when it is found', () => {
  it('GET /model shows each verdict when its check ends, before any request: broken with the runtime\'s reason, or trained', async () => {
    await until(async () => expect(await model('neural-kokoro-refused-af')).toMatchObject({ state: 'failed' }))
    expect((await model('neural-kokoro-refused-af')).state_reason).toMatch(/model package kokoro-refused is broken, the runtime refused it: \S/)
    await until(async () => expect(await model('neural-kokoro-good-af')).toMatchObject({ state: 'trained' }))
    // Checked before anything asked for them: one load each, no synthesis with the broken one.
    expect(loads.filter((k) => k === 'kokoro-refused')).toEqual(['kokoro-refused'])
    expect(spoken).not.toContain('kokoro-refused')
    // Checks and sample clips since the start ended no serving process (a check process's ending is its verdict).
    expect(await exits()).toBe(0)
  })

  it('broken packages: 4xx naming the package and why, in a loop, while the good voice speaks; one load, no sample, no process ended', async () => {
    const exitsBefore = await exits()
    await until(async () => expect(await model('neural-kokoro-good-af')).toMatchObject({ state: 'trained' }))
    for (let round = 0; round < 4; round++) {
      const refused = await tts('neural-kokoro-refused-af')
      expect(refused.status, refused.body.toString()).toBe(409)
      expect(JSON.parse(refused.body.toString()).message).toMatch(/kokoro-refused is broken, the runtime refused it: .+fix or replace its files/)
      // Files Parla cannot read give no voices at all: unknown, never a runtime load.
      for (const voice of ['neural-kokoro-truncated-af', 'neural-kokoro-garbage-af']) expect((await tts(voice)).status).toBe(404)
      const good = await tts('neural-kokoro-good-af')
      expect(good.status, good.body.toString()).toBe(200)
      expect(good.body.length).toBeGreaterThan(RATE / 10)
    }
    // The good voice's audio never waited for a load of the broken package: there was none after its check.
    expect(loads.filter((k) => k === 'kokoro-refused')).toEqual(['kokoro-refused'])
    expect(loads.filter((k) => /truncated|garbage/.test(k))).toEqual([])
    expect(spoken).not.toContain('kokoro-refused')
    expect((await fetch(`${server.address}/model/neural-kokoro-refused-af/samples/0`, { headers: auth })).status).toBe(404)
    expect(await exits()).toBe(exitsBefore)
    expect(logs.lines.filter((l) => l.package === 'kokoro-refused' && /model package broken/.test(l.msg))).toHaveLength(1)
  })

  it('parla models list shows the kept verdicts (unchecked for a package never loaded); models add loads before saying ready', async () => {
    await cp(join(FIXTURES, V019), join(root, 'kokoro-new'), { recursive: true })
    await cp(join(modelsDir, 'kokoro-refused'), join(root, 'kokoro-refused-copy'), { recursive: true })
    const other = join(root, 'other')
    const add = async (path: string) => (await run(process.execPath, [parla, 'models', 'add', path, '--models-dir', other, '--data-dir', join(root, 'data')])).stdout
    expect(await add(join(root, 'kokoro-refused-copy'))).toMatch(/installed kokoro-refused-copy \(kokoro tts, en\)\nbroken: the runtime refused it: \S/)
    expect(await add(join(root, 'kokoro-new'))).toMatch(/ready: the runtime loads it/)
    await cp(join(FIXTURES, V019), join(other, 'kokoro-copied-by-hand'), { recursive: true })
    const listed = (await run(process.execPath, [parla, 'models', 'list', '--models-dir', other, '--data-dir', join(root, 'data')])).stdout
    expect(listed).toMatch(/kokoro-new\tkokoro\ttts\ten\t\S+\tready\n/)
    expect(listed).toMatch(/kokoro-refused-copy\tkokoro\ttts\ten\t\S+\tbroken: the runtime refused it: \S/)
    expect(listed).toMatch(/kokoro-copied-by-hand\tkokoro\ttts\ten\t\S+\tunchecked\n/)
    const here = await cli('list')
    expect(here).toMatch(/kokoro-good\tkokoro\ttts\ten\t\S+\tready\n/)
    expect(here).toMatch(/kokoro-truncated\t\?\t\?\t-\t-\tunreadable: .*not an ONNX model \(truncated\)/)
    expect(here).toMatch(/kokoro-garbage\t\?\t\?\t-\t-\tunreadable: .*not an ONNX model/)
  })

  it('a restart loads no unchanged package again', async () => {
    const before = loads.length
    const engine = await createNeuralEngine({ neural: { modelsDir, processes: 1, threads: 1 } })
    try {
      const voice = (id: string) => engine.voices().find((v) => v.id === id)!
      expect(voice('kokoro-refused-af').unavailable).toMatch(/runtime refused it/)
      expect(voice('kokoro-good-af')).not.toHaveProperty('checking')
      expect(loads.length).toBe(before)
    } finally {
      await engine.close()
    }
  })

  it('a package added is checking until its check ends, and a request to it waits for the verdict instead of loading beside it', async () => {
    // A folder of its own, so the server's watcher does not use the package too.
    const alone = join(root, 'alone')
    const engine = await createNeuralEngine({ neural: { modelsDir: alone, processes: 1, threads: 1 } })
    const before = loads.length
    try {
      const voice = (id: string) => engine.voices().find((v) => v.id === id)!
      await cp(join(FIXTURES, V019), join(alone, 'kokoro-late'), { recursive: true })
      await engine.rescan!()
      expect(voice('kokoro-late-af').checking).toBe(true)
      const pieces = []
      for await (const piece of engine.synthesize({ text: 'Hello.', voice: 'kokoro-late-af' })) pieces.push(piece)
      expect(pieces.some((p) => p.samples.length > 0)).toBe(true)
      // The check's load, then the serving one: the request waited for the verdict instead of loading beside it.
      expect(loads.slice(before)).toEqual(['kokoro-late', 'kokoro-late'])
      expect(voice('kokoro-late-af')).not.toHaveProperty('checking')
    } finally {
      await engine.close()
    }
  })
})

describe('an ASR package', () => {
  it('configured as asrEngine is checked once at start; broken, its transcriptions answer 409 with the runtime\'s reason and load nothing more', async () => {
    // A NeMo CTC package whose files pass every check that can be made without the runtime (its metadata and
    // tokens are there) but whose model has no graph: only loading it finds that. (A Whisper decoder that is not
    // a model is found from its files: test/whisper-models.test.ts.)
    const dir = join(root, 'asr')
    await writeNemoCtc(dir, 'sherpa-onnx-nemo-broken')
    await writeFile(join(dir, 'sherpa-onnx-nemo-broken', 'model.onnx'), metadataBytes({ vocab_size: 4, subsampling_factor: 8 }))
    const asrLoads: string[] = []
    const loadAsr = NeuralHost.prototype.loadAsr
    const spy = vi.spyOn(NeuralHost.prototype, 'loadAsr').mockImplementation(function (this: NeuralHost, key, config, threads) {
      asrLoads.push(key)
      return loadAsr.call(this, key, config, threads)
    })
    const engine = (await asrEngineFromSettings('sherpa-onnx-nemo-broken', { modelsDir: dir, processes: 1, threads: 1 }, 1))!
    try {
      for (let i = 0; i < 3; i++) {
        await expect(engine.transcribe(whisperSpeech([1]), { language: 'en' })).rejects.toMatchObject({
          code: 'not_ready', message: expect.stringMatching(/ASR model package sherpa-onnx-nemo-broken is broken, the runtime refused it: \S/),
        })
      }
      expect(asrLoads).toEqual(['sherpa-onnx-nemo-broken'])
      const { stdout } = await run(process.execPath, [parla, 'models', 'list', '--models-dir', dir, '--data-dir', join(root, 'data')])
      expect(stdout).toMatch(/sherpa-onnx-nemo-broken\tnemo-ctc\tasr\ten\t\S+\tbroken: the runtime refused it: \S/)
    } finally {
      await engine.close()
      spy.mockRestore()
    }
  })
})

describe('a serving process that dies anyway', () => {
  it('is replaced; its request answers 503 saying why, logged once; other voices speak; twice on one package marks it broken', async () => {
    await until(async () => expect(await model('neural-kokoro-dies-af')).toMatchObject({ state: 'trained' }))
    const exitsBefore = await exits()
    killOnSynth = 'kokoro-dies'
    try {
      const [dying, other] = await Promise.all([tts('neural-kokoro-dies-af'), tts('neural-kokoro-good-af')])
      expect(dying.status, dying.body.toString()).toBe(503)
      expect(dying.retryAfter).toBe('1')
      expect(JSON.parse(dying.body.toString()).message).toMatch(/runtime process serving model package kokoro-dies ended under this request \(SIGKILL\); it was replaced, try again/)
      expect(other.status).toBe(200)
      expect(await exits()).toBe(exitsBefore + 1)
      expect(logs.lines.filter((l) => /TTS runtime process ended/.test(l.msg))).toHaveLength(1)
      expect((await tts('neural-kokoro-good-af')).status).toBe(200)
      // The second death with the same files: the package is broken, and says so from then on.
      expect((await tts('neural-kokoro-dies-af')).status).toBe(503)
      const after = await tts('neural-kokoro-dies-af')
      expect(after.status).toBe(409)
      expect(JSON.parse(after.body.toString()).message).toMatch(/kokoro-dies is broken, the runtime refused it: 2 runtime processes ended while using it, the last \(SIGKILL\)/)
      await until(async () => expect(await model('neural-kokoro-dies-af')).toMatchObject({ state: 'failed' }))
      expect(await exits()).toBe(exitsBefore + 2)
    } finally {
      killOnSynth = undefined
    }
    expect((await tts('neural-kokoro-good-af')).status).toBe(200)
  })
})
