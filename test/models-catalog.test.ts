import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdir, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises'
import { createServer, type Server as HttpServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { loadConfig } from '../src/config/load.js'
import { CATALOG, filterCatalog, findCatalogEntry, mirrored, type CatalogEntry } from '../src/models/catalog.js'
import { pullCatalogEntry } from '../src/models/catalog-pull.js'
import { NATURAL_VOICE_HINT } from '../src/models/natural-hint.js'
import { unpackArchive } from '../src/models/unpack.js'
import { startServer, type Server } from '../src/server.js'
import { parla } from './helpers/cli.js'
import { pcm16 } from './helpers/tts-audio.js'
import { FIXTURES as KOKORO_FIXTURES, V019 } from './support/kokoro-packages.js'
import { captureLogs } from './support/log-capture.js'
import { writePiperVoice } from './support/neural-models.js'

/**
 * `parla models catalog` and `parla models pull <name>` against a local mirror (`modelsMirror`) that serves test
 * models under the catalog's own paths: the Kokoro package built from hexgrad/kokoro's code, packed as its
 * `.tar.bz2` release, and a Piper voice (`.onnx` + `.onnx.json`), built by rhasspy/piper's own code where the tree
 * has it (test/fixtures/models/piper), else a synthetic one.
 */
const PIPER_FIXTURES = join(import.meta.dirname, 'fixtures', 'models', 'piper')
const PIPER_FIXTURE = 'en_US-parla_test-medium'
const RATE = 24_000
/** A test with several `parla` runs: each starts a Node process with tsx, slow on a loaded machine. */
const CLI_RUNS = 300_000

let root: string
let dataDir: string
let modelsDir: string
let mirror: HttpServer
let base: string
const files = new Map<string, Buffer>()
const requests: { path: string; range: string | undefined }[] = []
/** Paths whose next response is cut after this many bytes, once the client has stored some of them. */
const cutAfter = new Map<string, { bytes: number; part: string }>()
let piper: { onnx: Buffer; json: Buffer }

const run = promisify(execFile)
const pathOf = (url: string) => new URL(url).pathname
const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex')
const installed = async () => (await readdir(modelsDir).catch(() => [] as string[])).filter((n) => !n.startsWith('.')).sort()
const downloadsOf = (name: string) => readdir(join(modelsDir, '.parla-cache', 'downloads', name)).catch(() => null)

/**
 * A Piper voice: the single-speaker voice built by rhasspy/piper's own code (test/fixtures/models/piper, a
 * release-style `.tar.gz` of its folder) when the tree has it, else a synthetic one with Piper's layout.
 */
async function piperVoice(work: string): Promise<{ onnx: Buffer; json: Buffer }> {
  const archive = join(PIPER_FIXTURES, `${PIPER_FIXTURE}.tar.gz`)
  const dir = await stat(archive).then(
    () => unpackArchive(archive, join(work, 'piper')),
    () => writePiperVoice(work, PIPER_FIXTURE, { sampleRate: RATE }))
  return { onnx: await readFile(join(dir, `${PIPER_FIXTURE}.onnx`)), json: await readFile(join(dir, `${PIPER_FIXTURE}.onnx.json`)) }
}

/** A catalog entry with the real entry's names and paths but the test voice's size and MD5. */
function withTestFacts(name: string, facts: { onnx: Buffer; json: Buffer }, change: Partial<Record<'onnxMd5' | 'jsonMd5' | 'onnxSha256', string>> = {}): CatalogEntry {
  const entry = findCatalogEntry(name)
  const [onnx, json] = entry.files
  return {
    ...entry,
    files: [
      { url: onnx!.url, size: facts.onnx.length, md5: change.onnxMd5 ?? md5(facts.onnx), ...(change.onnxSha256 && { sha256: change.onnxSha256 }) },
      { url: json!.url, size: facts.json.length, md5: change.jsonMd5 ?? md5(facts.json) },
    ],
  }
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'parla-catalog-'))
  dataDir = join(root, 'data')
  modelsDir = join(dataDir, 'models')
  await mkdir(modelsDir, { recursive: true })
  const work = join(root, 'work')
  await mkdir(work)
  // The Kokoro release as sherpa-onnx publishes it: one .tar.bz2 holding the kokoro-en-v0_19 folder.
  await run('tar', ['-cjf', join(work, `${V019}.tar.bz2`), '-C', KOKORO_FIXTURES, V019])
  files.set(pathOf(findCatalogEntry(V019).files[0]!.url), await readFile(join(work, `${V019}.tar.bz2`)))
  piper = await piperVoice(work)
  files.set(pathOf(findCatalogEntry('kokoro-multi-lang-v1_0').files[0]!.url), Buffer.from('this is not bzip2 data at all'))
  files.set(pathOf(findCatalogEntry('kokoro-multi-lang-v1_1').files[0]!.url), files.get(pathOf(findCatalogEntry(V019).files[0]!.url))!)
  for (const name of ['en_US-amy-low', 'en_US-lessac-medium', 'de_DE-thorsten-medium']) {
    const [onnx, json] = findCatalogEntry(name).files
    files.set(pathOf(onnx!.url), piper.onnx)
    files.set(pathOf(json!.url), piper.json)
  }
  mirror = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url!, 'http://x').pathname)
    requests.push({ path, range: req.headers.range })
    const body = files.get(path)
    if (!body) return void res.writeHead(404).end()
    const from = Number(/^bytes=(\d+)-$/.exec(req.headers.range ?? '')?.[1] ?? 0)
    if (from >= body.length && from > 0) return void res.writeHead(416).end()
    res.writeHead(from > 0 ? 206 : 200, { 'content-length': body.length - from, ...(from > 0 && { 'content-range': `bytes ${from}-${body.length - 1}/${body.length}` }) })
    const cut = cutAfter.get(path)
    if (!cut) return void res.end(body.subarray(from))
    cutAfter.delete(path)
    // The first bytes leave; once the client has stored some, the connection drops short of the length.
    res.write(body.subarray(from, cut.bytes))
    const poll = () => void stat(cut.part).then((s) => s.size > 0, () => false).then((stored) => (stored ? res.socket?.destroy() : setTimeout(poll, 5)))
    poll()
  })
  await new Promise<void>((r) => mirror.listen(0, '127.0.0.1', r))
  base = `http://127.0.0.1:${(mirror.address() as AddressInfo).port}`
})

afterAll(async () => {
  mirror?.close()
  await rm(root, { recursive: true, force: true })
})

const cli = (...args: string[]) => parla([...args, '--data-dir', dataDir], { env: { PARLA_MODELS_MIRROR: base } })

describe('parla models catalog', () => {
  it('--json is one array with every entry\'s facts and its URLs on the mirror', async () => {
    const res = await cli('models', 'catalog', '--json')
    expect(res.code, res.stderr).toBe(0)
    const list = JSON.parse(res.stdout.toString()) as (CatalogEntry & { size: number | null; installed: boolean; urls: string[] })[]
    expect(list.map((e) => e.name)).toEqual(CATALOG.map((e) => e.name))
    const amy = list.find((e) => e.name === 'en_US-amy-low')!
    // The publisher's figures (piper-voices' voices.json): both files, sizes summed.
    expect(amy).toMatchObject({ kind: 'tts', family: 'piper', languages: ['en-us'], size: 63104526 + 4164, installed: false })
    expect(amy.files[0]).toEqual({ url: 'https://huggingface.co/rhasspy/piper-voices/resolve/main/en/en_US/amy/low/en_US-amy-low.onnx', size: 63104526, md5: '3c3f6a6ec605f3a59763256d3b2db012' })
    expect(amy.urls).toEqual([`${base}/rhasspy/piper-voices/resolve/main/en/en_US/amy/low/en_US-amy-low.onnx`, `${base}/rhasspy/piper-voices/resolve/main/en/en_US/amy/low/en_US-amy-low.onnx.json`])
    expect(list.find((e) => e.name === V019)).toMatchObject({ family: 'kokoro', size: null, urls: [`${base}/k2-fsa/sherpa-onnx/releases/download/tts-models/${V019}.tar.bz2`] })
    for (const e of list) {
      expect(e.licence.length).toBeGreaterThan(0)
      expect(e.languages.length).toBeGreaterThan(0)
      for (const f of e.files) expect(f.url).toMatch(/^https:\/\/(huggingface\.co|github\.com)\//)
    }
    for (const family of ['piper', 'kokoro', 'zipvoice', 'whisper', 'moonshine']) expect(list.some((e) => e.family === family)).toBe(true)
  })

  it('filters by kind and language, and shows a table', { timeout: CLI_RUNS }, async () => {
    const asr = filterCatalog({ kind: 'asr' })
    expect(asr.map((e) => e.family).sort()).toEqual([...Array(6).fill('whisper'), 'moonshine', 'moonshine', 'streaming-transducer'].sort())
    const german = JSON.parse((await cli('models', 'catalog', '--json', '--language', 'de')).stdout.toString()) as CatalogEntry[]
    expect(german.map((e) => e.name)).toContain('de_DE-thorsten-medium')
    expect(german.map((e) => e.name)).toContain('sherpa-onnx-whisper-base')
    expect(german.map((e) => e.name)).not.toContain('en_US-amy-low')
    const table = await cli('models', 'catalog', '--kind', 'tts')
    expect(table.stdout.toString()).toMatch(/^NAME\tKIND\tFAMILY\tSIZE\tLANGUAGES\tLICENCE\tINSTALLED\n/)
    expect(table.stdout.toString()).toMatch(/\nen_US-amy-low\ttts\tpiper\t63 MB\ten-us\tMIT \(piper-voices\)[^\t]*\tno\n/)
    expect(table.stderr).toMatch(/parla models pull <name>/)
  })
})

describe('parla models pull <name> from the mirror', () => {
  let server: Server
  let logs = captureLogs()
  const start = async () => {
    logs = captureLogs()
    const config = loadConfig({ env: {}, file: undefined, flags: { dataDir, port: 0, logLevel: 'info', asrWorkers: 1, festivalProcesses: 1 } })
    server = await startServer(config, { inMemory: true, logger: logs.logger })
  }

  beforeAll(start, 180_000)
  afterAll(() => server?.drain(), 180_000)

  const speak = async (voice: string) => {
    const { key } = await server.deps.keys.create('catalog')
    const res = await fetch(`${server.address}/v1/tts`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ text: 'Hello world, this is a test.', reference_id: voice, format: 'pcm', sample_rate: RATE, normalize: false }) })
    const body = Buffer.from(await res.arrayBuffer())
    expect(res.status, body.toString()).toBe(200)
    const audio = pcm16(body)
    expect(audio.length).toBeGreaterThan(RATE / 10)
    expect(audio.some((x) => Math.abs(x) > 0.01)).toBe(true)
  }

  it('a server with no neural model says at start how to get a natural voice', () => {
    expect(logs.lines.filter((l) => l.msg === NATURAL_VOICE_HINT)).toHaveLength(1)
    expect(NATURAL_VOICE_HINT).toMatch(/parla models pull en_US-lessac-medium/)
    expect(CATALOG.some((e) => e.name === 'en_US-lessac-medium')).toBe(true)
  })

  it('fetches Kokoro\'s release with progress, unpacks and installs it; the running server speaks with it', { timeout: CLI_RUNS }, async () => {
    const res = await cli('models', 'pull', 'kokoro-en')
    expect(res.code, res.stderr).toBe(0)
    expect(res.stderr).toContain(`fetching ${V019}.tar.bz2 from ${base}/k2-fsa/sherpa-onnx/releases/download/tts-models/${V019}.tar.bz2\n`)
    expect(res.stderr).toMatch(/kokoro-en-v0_19\.tar\.bz2 50% \([\d.]+ MB of [\d.]+ MB\)\n/)
    expect(res.stderr).toMatch(/kokoro-en-v0_19\.tar\.bz2 100% \([\d.]+ MB of [\d.]+ MB\)\n/)
    expect(res.stdout.toString()).toMatch(/^installed kokoro-en-v0_19 \(kokoro tts, en\)\nvoices: neural-kokoro-en-v0-19-af,neural-kokoro-en-v0-19-am-adam/)
    expect(await installed()).toContain(V019)
    expect(await downloadsOf(V019)).toBeNull()
    // The running server takes it in through its folder watch and speaks with it.
    await vi.waitFor(async () => expect(await server.deps.models.repo.findById('neural-kokoro-en-v0-19-af')).toMatchObject({ state: 'trained' }), { timeout: 90_000, interval: 100 })
    await speak('neural-kokoro-en-v0-19-af')
    const listed = JSON.parse((await cli('models', 'catalog', '--json', '--kind', 'tts')).stdout.toString()) as { name: string; installed: boolean }[]
    expect(listed.find((e) => e.name === V019)!.installed).toBe(true)
    expect((await cli('models', 'pull', V019)).stderr).toMatch(/kokoro-en-v0_19 is already installed/)
  })

  it('resumes a Piper voice cut off mid-file, verifies both files, installs the voice and the server speaks with it', { timeout: 180_000 }, async () => {
    const entry = withTestFacts('de_DE-thorsten-medium', piper)
    const onnxPath = pathOf(entry.files[0]!.url)
    const half = Math.floor(piper.onnx.length / 2)
    cutAfter.set(onnxPath, { bytes: half, part: join(modelsDir, '.parla-cache', 'downloads', entry.name, 'de_DE-thorsten-medium.onnx.part') })
    requests.length = 0
    const seen: number[] = []
    const pkg = await pullCatalogEntry(modelsDir, entry, { mirror: base, onProgress: (done) => void seen.push(done) })
    expect(pkg).toMatchObject({ id: 'de_DE-thorsten-medium', family: 'piper', runnable: true })
    const onnxRequests = requests.filter((r) => r.path === onnxPath)
    expect(onnxRequests).toHaveLength(2)
    expect(onnxRequests[0]!.range).toBeUndefined()
    const resumedFrom = Number(/^bytes=(\d+)-$/.exec(onnxRequests[1]!.range ?? '')?.[1])
    expect(resumedFrom).toBeGreaterThan(0)
    expect(resumedFrom).toBeLessThanOrEqual(half)
    expect(seen).toContain(piper.onnx.length)
    expect(await readFile(join(modelsDir, 'de_DE-thorsten-medium', 'de_DE-thorsten-medium.onnx'))).toEqual(piper.onnx)
    expect(await readdir(join(modelsDir, 'de_DE-thorsten-medium'))).toEqual(['de_DE-thorsten-medium.onnx', 'de_DE-thorsten-medium.onnx.json'])
    await vi.waitFor(async () => expect(await server.deps.models.repo.findById(`neural-${pkg.id.toLowerCase().replaceAll('_', '-')}`)).toMatchObject({ state: 'trained' }), { timeout: 90_000, interval: 100 })
    await speak(`neural-${pkg.id.toLowerCase().replaceAll('_', '-')}`)
  })

  it('a checksum mismatch is a clear error and leaves nothing behind', async () => {
    const entry = withTestFacts('en_US-amy-low', piper, { jsonMd5: '0'.repeat(32) })
    await expect(pullCatalogEntry(modelsDir, entry, { mirror: base })).rejects.toMatchObject({
      code: 'bad_request',
      message: expect.stringMatching(/^en_US-amy-low\.onnx\.json: checksum mismatch: md5 [0-9a-f]{32}, the publisher lists 0{32}; the download was discarded and nothing was installed/),
    })
    expect(await installed()).not.toContain('en_US-amy-low')
    expect(await downloadsOf('en_US-amy-low')).toBeNull()
    expect(await readdir(join(modelsDir, '.parla-cache', 'work')).catch(() => [])).toEqual([])
    // A SHA-256 (huggingface's Git LFS figure) is checked too.
    await expect(pullCatalogEntry(modelsDir, withTestFacts('en_US-lessac-medium', piper, { onnxSha256: 'f'.repeat(64) }), { mirror: base })).rejects.toThrow(/^en_US-lessac-medium\.onnx: checksum mismatch: sha256 [0-9a-f]{64}, the publisher lists f{64}/)
    expect(await installed()).not.toContain('en_US-lessac-medium')
    expect(await downloadsOf('en_US-lessac-medium')).toBeNull()
  })

  it('a size other than the publisher\'s is refused by name through the CLI, leaving nothing behind', async () => {
    // The real catalog entry: the mirror serves the test voice where the publisher has a 63 MB one.
    const res = await cli('models', 'pull', 'en_US-amy-low')
    expect(res.code).toBe(1)
    expect(res.stderr).toMatch(new RegExp(`parla: en_US-amy-low\\.onnx: size mismatch: the publisher lists 63104526 bytes, ${base}/rhasspy/piper-voices/resolve/main/en/en_US/amy/low/en_US-amy-low\\.onnx sent ${piper.onnx.length}; the download was discarded and nothing was installed`))
    expect(await installed()).not.toContain('en_US-amy-low')
    expect(await downloadsOf('en_US-amy-low')).toBeNull()
  })

  it('an archive that does not unpack, or holds another package, installs nothing and is fetched afresh next time', async () => {
    await expect(pullCatalogEntry(modelsDir, findCatalogEntry('kokoro-multi-lang-v1_0'), { mirror: base })).rejects.toThrow(/kokoro-multi-lang-v1_0\.tar\.bz2 is not a valid \.tar\.bz2 archive/)
    await expect(pullCatalogEntry(modelsDir, findCatalogEntry('kokoro-multi-lang-v1_1'), { mirror: base })).rejects.toThrow(/kokoro-multi-lang-v1_1\.tar\.bz2 does not hold the folder kokoro-multi-lang-v1_1; nothing was installed/)
    for (const name of ['kokoro-multi-lang-v1_0', 'kokoro-multi-lang-v1_1']) {
      expect(await installed()).not.toContain(name)
      expect(await downloadsOf(name)).toBeNull()
    }
    expect(await readdir(join(modelsDir, '.parla-cache', 'work')).catch(() => [])).toEqual([])
  })

  it('an unknown name says where the names are; a file missing on the mirror names its URL', { timeout: CLI_RUNS }, async () => {
    const unknown = await cli('models', 'pull', 'en_US-nobody-medium')
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toMatch(/en_US-nobody-medium is not in the model catalog \(did you mean en_US-amy-low, .*\); 'parla models catalog' lists the names/)
    const missing = await cli('models', 'pull', 'whisper-tiny.en')
    expect(missing.code).toBe(1)
    expect(missing.stderr).toMatch(new RegExp(`download of ${base}/k2-fsa/sherpa-onnx/releases/download/asr-models/sherpa-onnx-whisper-tiny\\.en\\.tar\\.bz2 failed: HTTP 404`))
    expect(await installed()).not.toContain('sherpa-onnx-whisper-tiny.en')
  })

  it('a server started afterwards on the same data dir speaks with the pulled voices and gives no hint', { timeout: 180_000 }, async () => {
    await server.drain()
    await start()
    expect(logs.lines.some((l) => l.msg === 'built-in voices ready')).toBe(true)
    expect(logs.lines.filter((l) => l.msg === NATURAL_VOICE_HINT)).toEqual([])
    await speak('neural-kokoro-en-v0-19-am-adam')
    await speak('neural-de-de-thorsten-medium')
  })

  it('a mirror keeps the publisher\'s path under its own base', () => {
    expect(mirrored('https://huggingface.co/rhasspy/piper-voices/resolve/main/x.onnx', 'http://proxy:8080/models/')).toBe('http://proxy:8080/models/rhasspy/piper-voices/resolve/main/x.onnx')
    expect(mirrored('https://github.com/a/b.tar.bz2', '')).toBe('https://github.com/a/b.tar.bz2')
  })
})
