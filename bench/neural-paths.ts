/**
 * The two ways `bench:neural` speaks one text with one model: the runtime alone (sherpa-onnx in this process,
 * the configuration Parla prepares for the package, one thread) and end to end (`POST /v1/tts` to a Parla
 * server in a child process, pcm at the model's rate). Each reports wall time, time to first audio, seconds of
 * audio and the CPU time its side used (this process; the server and its neural processes, from /proc).
 */
import { readFileSync } from 'node:fs'
import { Agent, request } from 'node:http'
import { createRequire } from 'node:module'
import { detectPackage } from '../src/models/detect.js'
import { kokoroLang } from '../src/engines/tts/neural/kokoro-lang.js'
import { processTable, processTreeUsage } from './proc-cpu.js'
import type { BenchServer } from './server.js'

/** The server's neural processes (its children running the host module). */
export const neuralHosts = (server: BenchServer): number[] =>
  [...processTable()].filter(([, p]) => p.ppid === server.pid && p.cmdline.includes('--input-type=module')).map(([pid]) => pid)

export interface Run {
  readonly total: number
  readonly first: number
  readonly seconds: number
  readonly cpu: number
  /** Pages faulted in by the side's processes during the run (fresh memory touched). */
  readonly faults: number
}

interface Tts { readonly sampleRate: number; generateAsync(r: Record<string, unknown>): Promise<{ samples: Float32Array }> }
const sherpa = createRequire(import.meta.url)('sherpa-onnx-node') as { OfflineTts: { createAsync(c: unknown): Promise<Tts> } }
const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000 }
const rssMb = () => process.memoryUsage().rss / 2 ** 20
/** This process's minor page faults so far (/proc/self/stat, field 10). */
const ownFaults = () => {
  const stat = readFileSync('/proc/self/stat', 'utf8')
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[7])
}

export interface DirectVoice {
  /** The voice Parla gives speaker 0 (docs/models.md: lower case, `_` → `-`). */
  readonly voiceId: string
  readonly sampleRate: number
  /** Resident memory this process gained by loading the model (MB). */
  readonly loadedMb: number
  speak(text: string): Promise<Run>
}

/** Loads package `name` of `modelsDir` into this process's runtime as Parla would (speaker 0, English). */
export async function loadDirect(modelsDir: string, name: string): Promise<DirectVoice> {
  const pkg = await detectPackage(modelsDir, name)
  if (!pkg?.prepare) throw new Error(`${name} in ${modelsDir} is not a TTS package Parla runs`)
  const before = rssMb()
  const tts = await sherpa.OfflineTts.createAsync({ model: { ...await pkg.prepare(), numThreads: 1, provider: 'cpu', debug: 0 }, maxNumSentences: 1 })
  const loadedMb = rssMb() - before
  // What Parla sends a multi-language Kokoro model per call (host-main.ts); other models take no language.
  const lang = pkg.multiLanguage ? kokoroLang('en', pkg.speakerLanguages?.[0] ?? [], '') : undefined
  const speaker = pkg.speakers.length > 1 ? `-${pkg.speakers[0]}` : ''
  return {
    voiceId: `neural-${name}${speaker}`.toLowerCase().replaceAll('_', '-'),
    sampleRate: tts.sampleRate,
    loadedMb,
    async speak(text) {
      const f0 = ownFaults()
      const t0 = performance.now()
      const c0 = cpuMs()
      let first = 0
      const onProgress = () => { first ||= performance.now() - t0; return 1 }
      const out = await tts.generateAsync({ text, sid: 0, speed: 1, onProgress, ...(lang && { generationConfig: { speed: 1, sid: 0, extra: { lang } } }) })
      const total = performance.now() - t0
      return { total, first, seconds: out.samples.length / tts.sampleRate, cpu: cpuMs() - c0, faults: ownFaults() - f0 }
    },
  }
}

/**
 * The client is node:http with a keep-alive agent, as in the other benchmarks (bench/tts.ts): a lean client, so
 * the figure is Parla's. `fetch` (undici) adds its own few milliseconds per request to the first byte.
 */
const agent = new Agent({ keepAlive: true })

/** POSTs `body` as JSON and answers the status and the body's pieces as they arrive. */
function post(server: BenchServer, path: string, body: unknown): Promise<{ status: number; body: AsyncIterable<Buffer> }> {
  const payload = Buffer.from(JSON.stringify(body))
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, server.url), {
      method: 'POST',
      agent,
      headers: { authorization: `Bearer ${server.key}`, 'content-type': 'application/json', 'content-length': payload.length },
    }, (res) => resolve({ status: res.statusCode ?? 0, body: res }))
    req.on('error', reject)
    req.end(payload)
  })
}

/** The text of an error response. */
async function text(body: AsyncIterable<Buffer>): Promise<string> {
  const parts: Buffer[] = []
  for await (const part of body) parts.push(part)
  return Buffer.concat(parts).toString()
}

/** `POST /v1/tts` with `voice`, pcm at `rate`: wall time to the first and the last byte. */
export async function speakEndToEnd(server: BenchServer, voice: string, rate: number, spoken: string): Promise<Run> {
  const before = processTreeUsage(server.pid)
  const t0 = performance.now()
  const res = await post(server, '/v1/tts', { text: spoken, reference_id: voice, format: 'pcm', sample_rate: rate })
  if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${await text(res.body)}`)
  let first = 0
  let bytes = 0
  for await (const chunk of res.body) {
    first ||= performance.now() - t0
    bytes += chunk.length
  }
  const total = performance.now() - t0
  const after = processTreeUsage(server.pid)
  return { total, first, seconds: bytes / 2 / rate, cpu: after.cpuMs - before.cpuMs, faults: after.faults - before.faults }
}

/** The same by SSE (words aligned): wall time to the first and the last event. */
export async function speakSse(server: BenchServer, voice: string, rate: number, spoken: string): Promise<{ total: number; first: number }> {
  const t0 = performance.now()
  const res = await post(server, '/v1/tts/stream/with-timestamp', { text: spoken, reference_id: voice, format: 'pcm', sample_rate: rate })
  if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${await text(res.body)}`)
  let first = 0
  for await (const _ of res.body) first ||= performance.now() - t0
  return { total: performance.now() - t0, first }
}
