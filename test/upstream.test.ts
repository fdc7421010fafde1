import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { createServer, request as httpRequest, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestServer, type TestServer } from './helpers/app.js'
import { LiveClient } from './helpers/live.js'
import { createModel, waitForTraining } from './helpers/models.js'
import { parseSse, rebuild } from './helpers/sse.js'
import { pcm16, rmsDb } from './helpers/tts-audio.js'
import { runTtsEngineConformance } from './support/conformance/tts-engine.js'
import { createUpstreamEngine } from '../src/engines/tts/upstream/index.js'

/**
 * A Parla whose `s2-pro` requests go to a second, real Parla process (the upstream) through the `upstream`
 * engine. Between them sits a forwarding HTTP proxy that records each upstream request and whether it was
 * closed by the downstream before the upstream finished answering.
 */
const BIN = fileURLToPath(new URL('../bin/parla.js', import.meta.url))
let upstream: ChildProcess
let upstreamUrl: string
let upstreamKey: string
let dataDir: string
let proxy: Server
/** When set, the proxy hands the upstream's answer on in small pieces, one per timer turn, so answers take long. */
let throttle = false
const forwarded: { path: string; body: Record<string, unknown>; model: string | undefined; completed: boolean; cutByClient: boolean; closed: Promise<void> }[] = []
let s: TestServer
let url: string
const RATE = 16_000

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'parla-upstream-'))
  upstream = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--data-dir', dataDir, '--asr-workers', '1', '--festival-processes', '1'], { stdio: ['ignore', 'pipe', 'pipe'] })
  upstreamUrl = await new Promise<string>((resolve, reject) => {
    let out = ''
    const onData = (d: Buffer) => {
      out += d.toString()
      const m = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(out)
      if (m) resolve(m[1]!)
    }
    upstream.stdout!.on('data', onData)
    upstream.stderr!.on('data', onData)
    upstream.once('exit', (code) => reject(new Error(`upstream Parla exited (${code}): ${out.slice(-500)}`)))
  })
  // `serve` writes the first key once it listens: wait for the file rather than assume an order.
  upstreamKey = await (async function readKey(): Promise<string> {
    try {
      return (await readFile(join(dataDir, 'api-key'), 'utf8')).trim()
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 50))
      return readKey()
    }
  })()
  proxy = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      let markClosed!: () => void
      const record = { path: req.url!, body: JSON.parse(Buffer.concat(chunks).toString() || '{}') as Record<string, unknown>, model: req.headers.model as string | undefined, completed: false, cutByClient: false, closed: new Promise<void>((r) => (markClosed = r)) }
      forwarded.push(record)
      const target = new URL(req.url!, upstreamUrl)
      const out = httpRequest(target, { method: req.method, headers: req.headers }, (upRes) => {
        res.writeHead(upRes.statusCode!, upRes.headers)
        upRes.on('end', () => (record.completed = true))
        if (!throttle) return void upRes.pipe(res)
        void (async () => {
          for await (const chunk of upRes as AsyncIterable<Buffer>) {
            for (let at = 0; at < chunk.length; at += 1024) {
              if (res.destroyed) return
              res.write(chunk.subarray(at, at + 1024))
              await new Promise((r) => setTimeout(r, 10))
            }
          }
          res.end()
        })()
      })
      // The downstream went away mid-answer: pass the close on, as a direct connection would.
      res.on('close', () => {
        if (!record.completed) {
          record.cutByClient = true
          out.destroy()
        }
        markClosed()
      })
      out.on('error', () => res.destroy())
      out.end(Buffer.concat(chunks))
    })
  })
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r))
  const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`
  s = await startTestServer({ upstreamUrl: proxyUrl, upstreamKey, upstreamVoices: 'espeak-ng-de', upstreamSampleRate: 44_100, ttsRoutes: 's2-pro=upstream-default' })
  url = await s.listen()
}, 120_000)

afterAll(async () => {
  await s?.close()
  proxy?.closeAllConnections()
  proxy?.close()
  if (upstream && upstream.exitCode === null) {
    const exited = new Promise((r) => upstream.once('exit', r))
    upstream.kill('SIGTERM')
    await exited
  }
  await rm(dataDir, { recursive: true, force: true })
}, 120_000)

const TEXT = 'The weather today is calm and clear.'

// The engine contract, with the upstream Parla (festival) behind the engine; created after the upstream is up.
runTtsEngineConformance({
  name: 'upstream (another Parla)',
  create: () => createUpstreamEngine({ neural: { modelsDir: '', processes: 1, threads: 1, upstream: { url: upstreamUrl, key: upstreamKey, model: 's1', voices: ['default'], languages: ['en'], sampleRate: 44_100, timeoutSec: 60, retries: 1 } } }),
  voice: 'default',
})

describe('a Fish-compatible upstream (another Parla) as the s2-pro engine', () => {
  it('/v1/tts: the upstream synthesizes, as a streamed WAV request with the key and model header', async () => {
    const direct = await fetch(`${upstreamUrl}/v1/tts`, { method: 'POST', headers: { authorization: `Bearer ${upstreamKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ text: TEXT, format: 'pcm', sample_rate: RATE }) })
    const directSeconds = pcm16(new Uint8Array(await direct.arrayBuffer())).length / RATE
    forwarded.length = 0
    const res = await s.app.inject({ method: 'POST', url: '/v1/tts', headers: { ...s.asAlice, model: 's2-pro' }, payload: { text: TEXT, format: 'pcm', sample_rate: RATE } })
    expect(res.statusCode, res.body).toBe(200)
    const audio = pcm16(res.rawPayload)
    expect(rmsDb(audio)).toBeGreaterThan(-35)
    expect(audio.length / RATE).toBeGreaterThan(directSeconds * 0.8)
    expect(audio.length / RATE).toBeLessThan(directSeconds * 1.25)
    expect(forwarded).toHaveLength(1)
    expect(forwarded[0]).toMatchObject({ path: '/v1/tts', model: 's2-pro', completed: true, body: { text: TEXT, format: 'wav', streaming: true } })
    expect(forwarded[0]!.body.reference_id).toBeUndefined()
  })

  it('an upstream voice passes its reference_id; other model headers stay on the classic engines', async () => {
    forwarded.length = 0
    const res = await s.app.inject({ method: 'POST', url: '/v1/tts', headers: s.asAlice, payload: { text: 'Guten Morgen.', reference_id: 'upstream-espeak-ng-de', format: 'pcm', sample_rate: RATE } })
    expect(res.statusCode, res.body).toBe(200)
    expect(forwarded.map((f) => f.body.reference_id)).toEqual(['espeak-ng-de'])
    forwarded.length = 0
    const s1 = await s.app.inject({ method: 'POST', url: '/v1/tts', headers: { ...s.asAlice, model: 's1' }, payload: { text: TEXT, format: 'pcm', sample_rate: RATE } })
    expect(s1.statusCode).toBe(200)
    expect(forwarded).toEqual([])
  })

  it('references go to the upstream as they are, for it to clone from', async () => {
    const direct = await fetch(`${upstreamUrl}/v1/tts`, { method: 'POST', headers: { authorization: `Bearer ${upstreamKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ text: TEXT, format: 'wav' }) })
    const clip = new Uint8Array(await direct.arrayBuffer())
    forwarded.length = 0
    const res = await s.app.inject({ method: 'POST', url: '/v1/tts', headers: { ...s.asAlice, model: 's2-pro' }, payload: { text: 'Good morning to you.', format: 'pcm', sample_rate: RATE, references: [{ audio: Buffer.from(clip).toString('base64'), text: TEXT }] } })
    expect(res.statusCode, res.body).toBe(200)
    expect(rmsDb(pcm16(res.rawPayload))).toBeGreaterThan(-35)
    expect(forwarded).toHaveLength(1)
    const refs = forwarded[0]!.body.references as { audio: string; text: string }[]
    expect(refs.map((r) => r.text)).toEqual([TEXT])
    expect(Buffer.from(refs[0]!.audio, 'base64').equals(Buffer.from(clip))).toBe(true)
    expect(forwarded[0]!.body.reference_id).toBeUndefined()
  })

  it('a trained voice model gives its samples and transcripts to the upstream as references', async () => {
    const direct = await fetch(`${upstreamUrl}/v1/tts`, { method: 'POST', headers: { authorization: `Bearer ${upstreamKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ text: TEXT, format: 'wav' }) })
    const clip = new Uint8Array(await direct.arrayBuffer())
    const created = await createModel(s, s.asAlice, { voices: [clip], texts: [TEXT] })
    expect((await waitForTraining(s, s.asAlice, created._id, 60_000)).state).toBe('trained')
    forwarded.length = 0
    const res = await s.app.inject({ method: 'POST', url: '/v1/tts', headers: { ...s.asAlice, model: 's2-pro' }, payload: { text: 'Good morning to you.', reference_id: created._id, format: 'pcm', sample_rate: RATE } })
    expect(res.statusCode, res.body).toBe(200)
    expect(forwarded).toHaveLength(1)
    const refs = forwarded[0]!.body.references as { audio: string; text: string }[]
    expect(refs.map((r) => r.text)).toEqual([TEXT])
    expect(Buffer.from(refs[0]!.audio, 'base64').equals(Buffer.from(clip))).toBe(true)
  })

  it('SSE: word timings are added to the upstream audio by aligning it with the text, on the words spoken', async () => {
    // The upstream Parla speaks with festival, whose own SSE alignment is exact: the same audio must get the same times.
    const text = 'The weather today is calm and clear, but then, after a while, the wind came back.'
    const body = { text, format: 'pcm', sample_rate: RATE }
    const direct = await fetch(`${upstreamUrl}/v1/tts/stream/with-timestamp`, { method: 'POST', headers: { authorization: `Bearer ${upstreamKey}`, 'content-type': 'application/json' }, body: JSON.stringify(body) })
    const exact = rebuild(parseSse(await direct.text())).words
    const res = await s.app.inject({ method: 'POST', url: '/v1/tts/stream/with-timestamp', headers: { ...s.asAlice, model: 's2-pro' }, payload: body })
    expect(res.statusCode).toBe(200)
    const { audio, words } = rebuild(parseSse(res.body))
    expect(words.map((w) => w.text)).toEqual(exact.map((w) => w.text))
    expect(words).toHaveLength(16)
    const seconds = pcm16(audio).length / RATE
    words.forEach((w, i) => {
      expect(w.end).toBeLessThanOrEqual(seconds + 1e-3)
      expect(Math.abs(w.start - exact[i]!.start), `${w.text} starts at ${w.start}, festival says ${exact[i]!.start}`).toBeLessThan(0.12)
      expect(Math.abs(w.end - exact[i]!.end), `${w.text} ends at ${w.end}, festival says ${exact[i]!.end}`).toBeLessThan(0.12)
    })
  })

  it('the live socket speaks through the upstream', async () => {
    forwarded.length = 0
    const c = await LiveClient.connect(url, { ...s.asAlice, model: 's2-pro' })
    try {
      const { finish, audio } = await c.speak({ format: 'pcm', sample_rate: RATE }, TEXT)
      expect(finish).toEqual({ event: 'finish', reason: 'stop' })
      expect(rmsDb(pcm16(audio))).toBeGreaterThan(-35)
      expect(forwarded.length).toBeGreaterThan(0)
    } finally {
      await c.close()
    }
  })

  it('a request cancelled by its client closes the upstream request mid-answer', async () => {
    forwarded.length = 0
    throttle = true
    const long = Array.from({ length: 30 }, (_, i) => `This is sentence number ${i + 1}, and it goes on for a while before it ends.`).join(' ')
    const controller = new AbortController()
    const res = await fetch(`${url}/v1/tts`, { method: 'POST', signal: controller.signal, headers: { ...s.asAlice, model: 's2-pro', 'content-type': 'application/json' }, body: JSON.stringify({ text: long, format: 'pcm', sample_rate: RATE, chunk_length: 300 }) })
    const reader = res.body!.getReader()
    await reader.read()
    controller.abort()
    // The upstream request in flight when the client left is closed before its answer completed.
    await forwarded.at(-1)!.closed
    expect(forwarded.at(-1)!.cutByClient).toBe(true)
    expect(forwarded.every((f) => f.completed || f.cutByClient)).toBe(true)
    throttle = false
  })

  it('an unreachable upstream is a 502 after the retries', async () => {
    const closed = createServer()
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r))
    const port = (closed.address() as AddressInfo).port
    await new Promise((r) => closed.close(r))
    const lonely = await startTestServer({ upstreamUrl: `http://127.0.0.1:${port}`, upstreamRetries: 1, ttsRoutes: 's2-pro=upstream-default' })
    try {
      const res = await lonely.app.inject({ method: 'POST', url: '/v1/tts', headers: { ...lonely.asAlice, model: 's2-pro' }, payload: { text: TEXT, format: 'pcm' } })
      expect(res.statusCode).toBe(502)
    } finally {
      await lonely.close()
    }
  })
})
