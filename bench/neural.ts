/**
 * `npm run bench:neural`: Parla's overhead over the neural runtime alone, and time to first audio, on a
 * synthetic Piper voice (test/support: a tone model with dense layers per token, so the runtime has work
 * shaped like an acoustic model's). No real weights are needed.
 *
 * Runtime alone: sherpa-onnx in this process, the prepared voice, `generateAsync` on the text (one thread).
 * End to end: a Parla server in a child process (one neural process, one thread), `POST /v1/tts` with the
 * voice, pcm at the model's rate, the same text. Both run one after the other, never at once.
 * Besides wall time, the CPU time each side used (this process for the runtime; the server process and its
 * neural host processes, from /proc, for end to end): on a machine shared with other work, wall time mostly
 * measures the other work, while the CPU ratio is Parla's own cost.
 * Then the cost of word timing by alignment: the paragraph by SSE (words aligned per chunk) against the
 * plain `/v1/tts` above, and the aligner alone on festival's speech of each paragraph sentence (CPU per
 * second of audio, and how many sentences aligned rather than fell back to the pause estimate).
 * The synthetic voice is sized to a real voice's speed: its dense layers are calibrated on this machine until
 * the runtime alone speaks at BENCH_RTF (default 0.1: compute seconds per second of audio on one thread, lighter
 * than a real Piper `medium` voice, reported at about 0.1 with four threads, docs/models.md). A layer count
 * fixed across machines would make the ratio depend on the CPU: 96 layers took 90 ms for the sentence on one
 * machine and 10 ms on an AVX-512 one, where Parla's fixed few milliseconds then looked like 80 %. The
 * absolute overhead (ms per request, CPU ms per second of audio) is printed beside the ratios; it does not
 * depend on the model.
 * Last, the first request after `neuralIdleSec` stopped the processes, against a warm one.
 * Env: BENCH_RUNS (default 5; the sentence BENCH_SENTENCE_RUNS, default 30), BENCH_RTF (default 0.1),
 * BENCH_LAYERS (dense layers per token; skips the calibration).
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { detectPackage } from '../src/models/detect.js'
import { createPocketsphinxAligner } from '../src/engines/asr/pocketsphinx/index.js'
import { createFestivalEngine } from '../src/engines/tts/festival/index.js'
import { timeWords } from '../src/engines/tts/neural/timing.js'
import { estimateWords } from '../src/engines/tts/neural/words.js'
import { concatSamples } from '../src/audio/signal.js'
import { writePiperVoice } from '../test/support/neural-models.js'
import { processTable, processTreeCpuMs } from './proc-cpu.js'
import { startBenchServer } from './server.js'
import { PARAGRAPH_TEXT, SENTENCE } from './tts-texts.js'
import { mean, median } from './stats.js'

const RUNS = Number(process.env.BENCH_RUNS ?? 5)
/** One sentence is a short call: more runs, so the median is not one machine hiccup. */
const SENTENCE_RUNS = Number(process.env.BENCH_SENTENCE_RUNS ?? 30)
const TARGET_RTF = Number(process.env.BENCH_RTF ?? 0.1)
const RATE = 24_000

interface Tts { generateAsync(r: Record<string, unknown>): Promise<{ samples: Float32Array }> }
const sherpa = createRequire(import.meta.url)('sherpa-onnx-node') as { OfflineTts: { createAsync(c: unknown): Promise<Tts> } }
const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000 }

// The server's models, and the calibration's probe voices beside them (kept to the end: the runtime's eSpeak NG
// is set up once per process, from the first voice's data folder).
const workDir = await mkdtemp(join(tmpdir(), 'parla-bench-neural-'))
const modelsDir = join(workDir, 'models')
const probesDir = join(workDir, 'probes')

/** The synthetic voice with `layers` dense layers per token in `dir`, loaded in this process's runtime. */
async function loadVoice(dir: string, name: string, layers: number): Promise<Tts> {
  await writePiperVoice(dir, name, { work: layers })
  const config = await (await detectPackage(dir, name))!.prepare!()
  return sherpa.OfflineTts.createAsync({ model: { ...config, numThreads: 1, provider: 'cpu', debug: 0 }, maxNumSentences: 1 })
}

const speak = async (tts: Tts, text: string) => {
  const t0 = performance.now()
  const c0 = cpuMs()
  let first = 0
  const out = await tts.generateAsync({ text, sid: 0, speed: 1, onProgress: () => { first ||= performance.now() - t0; return 1 } })
  return { total: performance.now() - t0, first, seconds: out.samples.length / RATE, cpu: cpuMs() - c0 }
}

/** Median compute seconds per second of audio of the sentence, after a warm-up call. */
async function rtfOf(tts: Tts): Promise<number> {
  await speak(tts, SENTENCE)
  const rtfs: number[] = []
  for (let i = 0; i < 5; i++) {
    const run = await speak(tts, SENTENCE)
    rtfs.push(run.total / 1000 / run.seconds)
  }
  return median(rtfs)
}

/** Layers that make the runtime speak at TARGET_RTF here: a probe, then one correction (the tones cost a little too). */
async function calibrate(): Promise<number> {
  if (process.env.BENCH_LAYERS) return Number(process.env.BENCH_LAYERS)
  let layers = 96
  for (let step = 0; step < 2; step++) {
    const rtf = await rtfOf(await loadVoice(probesDir, `en_US-probe${step}-low`, layers))
    layers = Math.max(1, Math.round(layers * TARGET_RTF / rtf))
  }
  return layers
}

const LAYERS = await calibrate()
const tts = await loadVoice(modelsDir, 'en_US-bench-low', LAYERS)
const runtime = (text: string) => speak(tts, text)

const server = await startBenchServer({ modelsDir, neuralProcesses: 1, neuralThreads: 1 })
const endToEnd = async (text: string) => {
  const c0 = processTreeCpuMs(server.pid)
  const t0 = performance.now()
  const res = await fetch(new URL('/v1/tts', server.url), { method: 'POST', headers: { authorization: `Bearer ${server.key}`, 'content-type': 'application/json' }, body: JSON.stringify({ text, reference_id: 'neural-en-us-bench-low', format: 'pcm', sample_rate: RATE }) })
  if (!res.ok) throw new Error(`HTTP ${res.status}: ${await res.text()}`)
  let first = 0
  let bytes = 0
  for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
    first ||= performance.now() - t0
    bytes += chunk.length
  }
  const total = performance.now() - t0
  return { total, first, seconds: bytes / 2 / RATE, cpu: (processTreeCpuMs(server.pid)) - c0 }
}

/** The paragraph by SSE: wall time to the first and the last event. */
const sse = async (text: string) => {
  const t0 = performance.now()
  const res = await fetch(new URL('/v1/tts/stream/with-timestamp', server.url), { method: 'POST', headers: { authorization: `Bearer ${server.key}`, 'content-type': 'application/json' }, body: JSON.stringify({ text, reference_id: 'neural-en-us-bench-low', format: 'pcm', sample_rate: RATE }) })
  if (!res.ok) throw new Error(`HTTP ${res.status}: ${await res.text()}`)
  let first = 0
  for await (const _ of res.body as AsyncIterable<Uint8Array>) first ||= performance.now() - t0
  return { total: performance.now() - t0, first }
}

/** The aligner alone on festival's speech, one call per sentence (as the engines align one call at a time). */
async function alignmentCost(sentences: readonly string[]) {
  const festival = await createFestivalEngine({ processes: 1 })
  const aligner = createPocketsphinxAligner()
  try {
    const spoken: Float32Array[] = []
    for (const text of sentences) {
      const parts: Float32Array[] = []
      for await (const c of festival.synthesize({ text, voice: 'slt' })) parts.push(c.samples)
      spoken.push(concatSamples(parts))
    }
    await timeWords(sentences[0]!, spoken[0]!, festival.sampleRate, aligner) // starts the decoder thread
    const c0 = cpuMs()
    const t0 = performance.now()
    let aligned = 0
    for (const [i, text] of sentences.entries()) {
      const words = await timeWords(text, spoken[i]!, festival.sampleRate, aligner)
      if (JSON.stringify(words) !== JSON.stringify(estimateWords(text, spoken[i]!, festival.sampleRate))) aligned++
    }
    const seconds = spoken.reduce((n, s) => n + s.length, 0) / festival.sampleRate
    return { seconds, wall: performance.now() - t0, cpu: cpuMs() - c0, aligned }
  } finally {
    await Promise.all([festival.close(), aligner.close()])
  }
}

/**
 * `neuralIdleSec`: what the first request after the processes were stopped for idleness waits for (a process
 * start and the model's load) against a warm one's first byte, on a second server with `neuralIdleSec: 1`.
 */
async function idleRestart(): Promise<void> {
  const idle = await startBenchServer({ modelsDir, neuralProcesses: 1, neuralThreads: 1, neuralIdleSec: 1 })
  const firstByte = async () => {
    const t0 = performance.now()
    const res = await fetch(new URL('/v1/tts', idle.url), { method: 'POST', headers: { authorization: `Bearer ${idle.key}`, 'content-type': 'application/json' }, body: JSON.stringify({ text: SENTENCE, reference_id: 'neural-en-us-bench-low', format: 'pcm', sample_rate: RATE }) })
    let first = 0
    for await (const _ of res.body as AsyncIterable<Uint8Array>) first ||= performance.now() - t0
    return first
  }
  const hosts = () => [...processTable()].filter(([, p]) => p.ppid === idle.pid && p.cmdline.includes('--input-type=module')).length
  try {
    const warm: number[] = []
    const cold: number[] = []
    await firstByte()
    for (let i = 0; i < RUNS; i++) {
      warm.push(await firstByte())
      while (hosts() > 0) await new Promise((r) => setTimeout(r, 50))
      cold.push(await firstByte())
    }
    console.log(`after an idle stop (neuralIdleSec 1, ${RUNS} runs): first byte ${median(cold).toFixed(0)} ms against ${median(warm).toFixed(0)} ms warm (a process start and the model's load: ${(median(cold) - median(warm)).toFixed(0)} ms)`)
  } finally {
    await idle.stop()
  }
}

try {
  console.log(`bench:neural — synthetic Piper voice, ${LAYERS} dense layers/token (runtime at ${(await rtfOf(tts)).toFixed(3)} s per s of audio; target ${TARGET_RTF}), ${RUNS} runs, load ${loadavg().map((l) => l.toFixed(2)).join(' ')}`)
  // Warm both paths (model load, first-call costs).
  await runtime(SENTENCE)
  await endToEnd(SENTENCE)
  for (const [name, text, runs] of [['sentence', SENTENCE, SENTENCE_RUNS], ['paragraph', PARAGRAPH_TEXT, RUNS]] as const) {
    const rt: Awaited<ReturnType<typeof runtime>>[] = []
    const e2e: Awaited<ReturnType<typeof endToEnd>>[] = []
    for (let i = 0; i < runs; i++) {
      rt.push(await runtime(text))
      e2e.push(await endToEnd(text))
    }
    const rtTotal = median(rt.map((r) => r.total))
    const e2eTotal = median(e2e.map((r) => r.total))
    // CPU per run as the mean over all runs: /proc counts in 10 ms ticks, coarser than one sentence's overhead.
    const rtCpu = mean(rt.map((r) => r.cpu))
    const e2eCpu = mean(e2e.map((r) => r.cpu))
    console.log(`${name.padEnd(9)} audio ${median(e2e.map((r) => r.seconds)).toFixed(1)} s, ${runs} runs | runtime alone ${rtTotal.toFixed(0)} ms (first audio ${median(rt.map((r) => r.first)).toFixed(0)} ms, CPU ${rtCpu.toFixed(0)} ms) | end to end ${e2eTotal.toFixed(0)} ms (first byte ${median(e2e.map((r) => r.first)).toFixed(0)} ms, CPU ${e2eCpu.toFixed(0)} ms) | overhead wall ${(e2eTotal / rtTotal).toFixed(2)}, CPU ${(e2eCpu / rtCpu).toFixed(2)}`)
    const seconds = median(e2e.map((r) => r.seconds))
    console.log(`${''.padEnd(9)} Parla added ${(e2eTotal - rtTotal).toFixed(0)} ms wall, ${(e2eCpu - rtCpu).toFixed(0)} ms CPU (${((e2eCpu - rtCpu) / seconds).toFixed(2)} ms CPU per second of audio)`)
  }
  const plainRuns: number[] = []
  const timed: Awaited<ReturnType<typeof sse>>[] = []
  for (let i = 0; i < RUNS; i++) {
    plainRuns.push((await endToEnd(PARAGRAPH_TEXT)).total)
    timed.push(await sse(PARAGRAPH_TEXT))
  }
  const plain = median(plainRuns)
  console.log(`paragraph by SSE (words aligned) ${median(timed.map((r) => r.total)).toFixed(0)} ms (first event ${median(timed.map((r) => r.first)).toFixed(0)} ms) | /v1/tts ${plain.toFixed(0)} ms`)
  const cost = await alignmentCost(PARAGRAPH_TEXT.split(/(?<=[.!?])\s+/).slice(0, 8))
  console.log(`aligner alone: festival speech ${cost.seconds.toFixed(1)} s in 8 sentences, ${cost.aligned} aligned (the rest fell back) | wall ${cost.wall.toFixed(0)} ms, CPU ${cost.cpu.toFixed(0)} ms (${(cost.cpu / cost.seconds / 10).toFixed(2)} % of the audio's duration)`)
  await idleRestart()
  console.log(`load after: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`)
} finally {
  await server.stop()
  await rm(workDir, { recursive: true, force: true })
}
