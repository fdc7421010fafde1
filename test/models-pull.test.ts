import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { gzipSync } from 'node:zlib'
import { pack } from 'tar-stream'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { addModel, pullModel } from '../src/models/store.js'
import { writeGgml, writeKokoroLayout, writeMoonshineLayout, writePiperVoice, writeSherpaVits, writeWhisperLayout, writeZipVoiceLayout } from './support/neural-models.js'

/**
 * `parla models pull` against a local HTTP server serving archives this test made: progress, resume after a
 * cut connection, checksum, bad and unsafe archives; `add`/`list`/`rm` through the real CLI.
 */
const run = promisify(execFile)
const BIN = fileURLToPath(new URL('../bin/parla.js', import.meta.url))
let work: string
let modelsDir: string
let server: Server
let base: string
const files = new Map<string, Buffer>()
const requests: { url: string; range: string | undefined }[] = []
/** Paths whose next response is cut after this many bytes. */
const cutAfter = new Map<string, number>()

const tarOf = async (folder: string, name: string, flag: '-cjf' | '-czf') => {
  const out = join(work, name)
  await run('tar', [flag, out, '-C', work, folder])
  return readFile(out)
}

const unsafeArchive = async (entry: string) => {
  const p = pack()
  p.entry({ name: 'voice/' , type: 'directory' })
  p.entry({ name: entry }, 'evil')
  p.finalize()
  const chunks: Buffer[] = []
  for await (const c of p) chunks.push(c as Buffer)
  return gzipSync(Buffer.concat(chunks))
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'parla-pull-'))
  await writeSherpaVits(work, 'vits-piper-en_US-test-low')
  await writePiperVoice(work, 'en_US-loose-low')
  files.set('/vits-piper-en_US-test-low.tar.bz2', await tarOf('vits-piper-en_US-test-low', 'a.tar.bz2', '-cjf'))
  files.set('/vits-piper-en_US-gz-low.tar.gz', await tarOf('vits-piper-en_US-test-low', 'b.tar.gz', '-czf'))
  files.set('/en_US-loose-low.onnx', await readFile(join(work, 'en_US-loose-low', 'en_US-loose-low.onnx')))
  files.set('/en_US-loose-low.onnx.json', await readFile(join(work, 'en_US-loose-low', 'en_US-loose-low.onnx.json')))
  files.set('/broken.tar.bz2', Buffer.from('this is not bzip2 data at all'))
  files.set('/escape.tar.gz', await unsafeArchive('voice/../../escaped.txt'))
  files.set('/absolute.tar.gz', await unsafeArchive('/tmp/absolute.txt'))
  server = createServer((req: IncomingMessage, res) => {
    requests.push({ url: req.url!, range: req.headers.range })
    const body = files.get(req.url!)
    if (!body) return void res.writeHead(404).end()
    const from = Number(/^bytes=(\d+)-$/.exec(req.headers.range ?? '')?.[1] ?? 0)
    if (from >= body.length && from > 0) return void res.writeHead(416).end()
    res.writeHead(from > 0 ? 206 : 200, { 'content-length': body.length - from, ...(from > 0 && { 'content-range': `bytes ${from}-${body.length - 1}/${body.length}` }) })
    const cut = cutAfter.get(req.url!)
    if (cut !== undefined) {
      cutAfter.delete(req.url!)
      // Let the first bytes leave, then drop the connection mid-body.
      // Close the connection once the client has stored what it got: the body ends short of its length.
      res.write(body.subarray(from, cut))
      const part = join(modelsDir, '.parla-cache', 'downloads', `${req.url!.slice(1)}.part`)
      const poll = () => void stat(part).then((s) => s.size > 0, () => false).then((stored) => (stored ? res.socket?.end() : setTimeout(poll, 5)))
      return poll()
    }
    res.end(body.subarray(from))
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

beforeEach(async () => {
  modelsDir = await mkdtemp(join(tmpdir(), 'parla-models-'))
  requests.length = 0
})

afterEach(() => rm(modelsDir, { recursive: true, force: true }))

afterAll(async () => {
  server?.close()
  await rm(work, { recursive: true, force: true })
})

const installed = async () => (await readdir(modelsDir)).filter((n) => !n.startsWith('.')).sort()
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex')

describe('parla models pull', () => {
  it('downloads with progress, unpacks a .tar.bz2 release and installs it under its folder name', async () => {
    const seen: number[] = []
    const pkg = await pullModel(modelsDir, `${base}/vits-piper-en_US-test-low.tar.bz2`, { onProgress: (done, total) => { seen.push(done); expect(total).toBe(files.get('/vits-piper-en_US-test-low.tar.bz2')!.length) } })
    expect(pkg).toMatchObject({ id: 'vits-piper-en_US-test-low', family: 'vits', runnable: true })
    expect(await installed()).toEqual(['vits-piper-en_US-test-low'])
    expect(seen.at(-1)).toBe(files.get('/vits-piper-en_US-test-low.tar.bz2')!.length)
    expect(seen).toEqual([...seen].sort((a, b) => a - b))
    // Nothing left behind in the cache.
    expect(await readdir(join(modelsDir, '.parla-cache', 'downloads'))).toEqual([])
  })

  it('resumes a cut download from where it stopped and verifies the checksum', async () => {
    const url = '/vits-piper-en_US-gz-low.tar.gz'
    const body = files.get(url)!
    const half = Math.floor(body.length / 2)
    cutAfter.set(url, half)
    await expect(pullModel(modelsDir, `${base}${url}`, { sha256: sha(body) })).rejects.toThrow()
    expect(await installed()).toEqual([])
    const partSize = (await stat(join(modelsDir, '.parla-cache', 'downloads', 'vits-piper-en_US-gz-low.tar.gz.part'))).size
    expect(partSize).toBeGreaterThan(0)
    const pkg = await pullModel(modelsDir, `${base}${url}`, { sha256: sha(body) })
    expect(requests.at(-1)!.range).toBe(`bytes=${partSize}-`)
    expect(pkg.id).toBe('vits-piper-en_US-test-low')
    expect(await installed()).toEqual(['vits-piper-en_US-test-low'])
  })

  it('a checksum mismatch discards the download and installs nothing', async () => {
    await expect(pullModel(modelsDir, `${base}/vits-piper-en_US-test-low.tar.bz2`, { sha256: '0'.repeat(64) })).rejects.toMatchObject({ code: 'bad_request', message: expect.stringMatching(/checksum mismatch/) })
    expect(await installed()).toEqual([])
    expect(await readdir(join(modelsDir, '.parla-cache', 'downloads'))).toEqual([])
  })

  it('a Piper .onnx URL brings its .onnx.json along', async () => {
    const pkg = await pullModel(modelsDir, `${base}/en_US-loose-low.onnx`)
    expect(pkg).toMatchObject({ id: 'en_US-loose-low', family: 'piper', languages: ['en-us'] })
    expect(requests.map((r) => r.url)).toEqual(['/en_US-loose-low.onnx', '/en_US-loose-low.onnx.json'])
  })

  it.each([
    ['a corrupt .tar.bz2', '/broken.tar.bz2', /not a valid \.tar\.bz2 archive/],
    ['an entry escaping with ..', '/escape.tar.gz', /refusing unsafe archive entry voice\/\.\.\/\.\.\/escaped\.txt/],
    ['an absolute entry', '/absolute.tar.gz', /absolute\.tar\.gz: refusing unsafe archive entry \/tmp\/absolute\.txt/],
    ['a missing file', '/nothing.tar.gz', /HTTP 404/],
  ])('refuses %s and leaves modelsDir untouched', async (_what, url, message) => {
    await expect(pullModel(modelsDir, `${base}${url}`)).rejects.toThrow(message)
    expect(await installed()).toEqual([])
    await expect(stat(join(modelsDir, '..', 'escaped.txt'))).rejects.toThrow()
    expect(await readdir(join(modelsDir, '.parla-cache', 'work')).catch(() => [])).toEqual([])
  })
})

describe('parla models add: sherpa-onnx release archives as published', () => {
  it('takes the Kokoro, ZipVoice, Whisper and Moonshine .tar.bz2 archives and installs each under its folder name', async () => {
    const releases = {
      'kokoro-en-v0_19': { write: (d: string, n: string) => writeKokoroLayout(d, n, true), family: 'kokoro', kind: 'tts' },
      'sherpa-onnx-zipvoice-distill-zh-en-emilia': { write: writeZipVoiceLayout, family: 'zipvoice', kind: 'tts' },
      'sherpa-onnx-whisper-tiny.en': { write: (d: string, n: string) => writeWhisperLayout(d, n, false), family: 'whisper', kind: 'asr' },
      'sherpa-onnx-moonshine-tiny-en-int8': { write: writeMoonshineLayout, family: 'moonshine', kind: 'asr' },
    }
    for (const [name, { write, family, kind }] of Object.entries(releases)) {
      await write(work, name)
      await tarOf(name, `${name}.tar.bz2`, '-cjf')
      expect(await addModel(modelsDir, join(work, `${name}.tar.bz2`))).toMatchObject({ id: name, family, kind, runnable: true })
    }
    expect(await installed()).toEqual(Object.keys(releases).sort())
  })
})

describe('parla models add / list / rm (CLI)', () => {
  const cli = (...args: string[]) => run(process.execPath, [BIN, ...args, '--models-dir', modelsDir, '--data-dir', join(modelsDir, '.data')]).catch((err: { stdout: string; stderr: string; code: number }) => err)

  it('adds a Piper folder and a ggml file, lists their voices, removes one', async () => {
    const added = await cli('models', 'add', join(work, 'en_US-loose-low'))
    expect(added.stdout).toMatch(/installed en_US-loose-low \(piper tts, en-us\)/)
    await writeGgml(work, 'ggml-tiny.bin')
    expect((await cli('models', 'add', join(work, 'ggml-tiny.bin'))).stdout).toMatch(/installed ggml-tiny\.bin \(whisper-ggml asr\)/)
    const list = (await cli('models', 'list')).stdout
    expect(list).toMatch(/en_US-loose-low\tpiper\ttts\ten-us\tneural-en-us-loose-low\tready/)
    expect(list).toMatch(/ggml-tiny\.bin\twhisper-ggml\tasr\t-\tasr:ggml-tiny\.bin\tnot runnable: /)
    expect((await cli('models', 'rm', 'en_US-loose-low')).stdout).toBe('removed en_US-loose-low; a server using this folder stops offering its voices now (or when sent SIGHUP)\n')
    expect(await installed()).toEqual(['ggml-tiny.bin'])
  })

  it('refuses what is not a model, with a message and exit code 1', async () => {
    await writeFile(join(work, 'notes.txt'), 'hello')
    const res = await cli('models', 'add', join(work, 'notes.txt')) as { stderr: string; code: number }
    expect(res.code).toBe(1)
    expect(res.stderr).toMatch(/notes\.txt is not a model package Parla recognises/)
    const gone = await cli('models', 'rm', 'nothing-here') as { stderr: string; code: number }
    expect(gone.stderr).toMatch(/no model nothing-here/)
    expect(await installed()).toEqual([])
  })
})
