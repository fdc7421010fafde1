/**
 * `npm run bench:neural`: real-architecture neural models on this machine — a Piper voice of the published
 * "medium" size and Kokoro-82M, each built from its project's own model code with random weights
 * (bench/neural-models.ts) — spoken by the runtime alone and through Parla, one after the other, never at once:
 * real-time factor, first audio, resident memory per loaded model, and Parla's overhead (wall and CPU).
 *
 * Runtime alone: sherpa-onnx in this process with the configuration Parla prepares, `generateAsync`, one thread.
 * End to end: a Parla server in a child process (one neural process, one thread), `POST /v1/tts` by node:http
 * with keep-alive (bench/neural-paths.ts), pcm at the model's rate. On a machine shared with other work, wall
 * time mostly measures the other work, while the CPU ratio is Parla's own cost; both are printed.
 * Then, on the Piper voice: the cost of word timing by alignment (SSE against plain `/v1/tts`, and the aligner
 * alone on festival's speech), and the first request after `neuralIdleSec` stopped the processes.
 * Before those, Whisper tiny and base at their published sizes: `/v1/asr` on 60 s of real speech against the
 * recognizer run directly (bench/neural-asr.ts), each on a server of its own (`asrEngine` names one package).
 * Env: BENCH_RUNS (default 5; the sentence BENCH_SENTENCE_RUNS, default 30), BENCH_MODELS_DIR,
 * BENCH_NEURAL_MODELS (default `piperMedium,kokoro,whisperTiny,whisperBase`).
 */
import { loadavg } from 'node:os'
import { createPocketsphinxAligner } from '../src/engines/asr/pocketsphinx/index.js'
import { createFestivalEngine } from '../src/engines/tts/festival/index.js'
import { timeWords } from '../src/engines/tts/neural/timing.js'
import { estimateWords } from '../src/engines/tts/neural/words.js'
import { concatSamples } from '../src/audio/signal.js'
import { BENCH_MODELS_DIR, benchModel, checkedOnce, type BenchModel } from './neural-models.js'
import { benchWhisper } from './neural-asr.js'
import { loadDirect, neuralHosts, speakEndToEnd, speakSse, type Run } from './neural-paths.js'
import { processMemory, startBenchServer, type BenchServer } from './server.js'
import { PARAGRAPH_TEXT, SENTENCE } from './tts-texts.js'
import { mean, median } from './stats.js'

const RUNS = Number(process.env.BENCH_RUNS ?? 5)
/** One sentence is a short call: more runs, so the median is not one machine hiccup. */
const SENTENCE_RUNS = Number(process.env.BENCH_SENTENCE_RUNS ?? 30)
const WHICH = (process.env.BENCH_NEURAL_MODELS ?? 'piperMedium,kokoro,whisperTiny,whisperBase').split(',') as BenchModel[]
const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000 }
const load = () => loadavg().map((l) => l.toFixed(2)).join(' ')

/** Runtime alone against end to end on `text`, alternating, `runs` times each. */
async function compare(label: string, runtime: (t: string) => Promise<Run>, endToEnd: (t: string) => Promise<Run>, text: string, runs: number) {
  const rt: Run[] = []
  const e2e: Run[] = []
  for (let i = 0; i < runs; i++) {
    rt.push(await runtime(text))
    e2e.push(await endToEnd(text))
  }
  const rtTotal = median(rt.map((r) => r.total))
  const e2eTotal = median(e2e.map((r) => r.total))
  const rtFirst = median(rt.map((r) => r.first))
  const e2eFirst = median(e2e.map((r) => r.first))
  // CPU per run as the mean over all runs: /proc counts in 10 ms ticks, coarser than one sentence's overhead.
  const rtCpu = mean(rt.map((r) => r.cpu))
  const e2eCpu = mean(e2e.map((r) => r.cpu))
  const seconds = median(e2e.map((r) => r.seconds))
  const faults = (runs: Run[]) => median(runs.map((r) => r.faults)).toFixed(0)
  console.log(`  ${label.padEnd(9)} audio ${seconds.toFixed(1)} s, ${runs} runs | runtime alone ${rtTotal.toFixed(0)} ms (RTF ${(rtTotal / 1000 / seconds).toFixed(3)}, first audio ${rtFirst.toFixed(0)} ms, CPU ${rtCpu.toFixed(0)} ms) | Parla ${e2eTotal.toFixed(0)} ms (first byte ${e2eFirst.toFixed(0)} ms, CPU ${e2eCpu.toFixed(0)} ms)`)
  console.log(`  ${''.padEnd(9)} Parla/runtime: total ${(e2eTotal / rtTotal).toFixed(3)}× (target ≤ 1.05), first audio ${e2eFirst - rtFirst >= 0 ? '+' : ''}${(e2eFirst - rtFirst).toFixed(0)} ms (target ≤ +20), CPU ${(e2eCpu / rtCpu).toFixed(3)}× (${((e2eCpu - rtCpu) / seconds).toFixed(1)} ms CPU per second of audio), pages faulted in per run ${faults(e2e)} against ${faults(rt)}`)
}

/** One model: its load, then the sentence and the paragraph both ways. */
async function benchModelSpeed(server: BenchServer, name: string): Promise<void> {
  const direct = await loadDirect(BENCH_MODELS_DIR, name)
  const voice = direct.voiceId
  const runtime = (t: string) => direct.speak(t)
  const endToEnd = (t: string) => speakEndToEnd(server, voice, direct.sampleRate, t)
  await runtime(SENTENCE)
  await endToEnd(SENTENCE)
  const hosts = neuralHosts(server).map((pid) => processMemory(pid).rssMb)
  console.log(`${name} (${voice}, ${direct.sampleRate} Hz): the model adds ${direct.loadedMb.toFixed(0)} MB resident to the process that loads it; Parla's neural process ${hosts.map((mb) => mb.toFixed(0)).join(', ')} MB resident after one call`)
  await compare('sentence', runtime, endToEnd, SENTENCE, SENTENCE_RUNS)
  await compare('paragraph', runtime, endToEnd, PARAGRAPH_TEXT, RUNS)
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
async function idleRestart(voice: string, rate: number): Promise<void> {
  const idle = await startBenchServer({ modelsDir: BENCH_MODELS_DIR, neuralProcesses: 1, neuralThreads: 1, neuralIdleSec: 1 })
  const firstByte = async () => (await speakEndToEnd(idle, voice, rate, SENTENCE)).first
  const hosts = () => neuralHosts(idle).length
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

// Built and checked before the servers start, so they find them at start, ready.
const built = WHICH.map((m) => benchModel(m))
await checkedOnce(built.map((b) => b.name))
console.log(`bench:neural — real-architecture models in ${BENCH_MODELS_DIR} (random weights), one neural process and one thread each side, load ${load()}`)
for (const { name } of built.filter((b) => b.kind === 'asr')) await benchWhisper(BENCH_MODELS_DIR, name, RUNS)
const voices = built.filter((b) => b.kind === 'tts')
const server = voices.length > 0 ? await startBenchServer({ modelsDir: BENCH_MODELS_DIR, neuralProcesses: 1, neuralThreads: 1 }) : undefined
try {
  if (server) await benchVoices(server)
  console.log(`load after: ${load()}`)
} finally {
  await server?.stop()
}

/** The TTS models on one server, then the Piper voice's word timing and idle restart, and the aligner's cost. */
async function benchVoices(server: BenchServer): Promise<void> {
  for (const { name } of voices) await benchModelSpeed(server, name)
  const piper = voices.find((b) => b.name.includes('medium'))
  if (piper) {
    const { voiceId: voice, sampleRate: rate } = await loadDirect(BENCH_MODELS_DIR, piper.name)
    const plainRuns: number[] = []
    const timed: Awaited<ReturnType<typeof speakSse>>[] = []
    for (let i = 0; i < RUNS; i++) {
      plainRuns.push((await speakEndToEnd(server, voice, rate, PARAGRAPH_TEXT)).total)
      timed.push(await speakSse(server, voice, rate, PARAGRAPH_TEXT))
    }
    console.log(`${piper.name}, paragraph by SSE (words aligned) ${median(timed.map((r) => r.total)).toFixed(0)} ms (first event ${median(timed.map((r) => r.first)).toFixed(0)} ms) | /v1/tts ${median(plainRuns).toFixed(0)} ms`)
    await idleRestart(voice, rate)
  }
  const cost = await alignmentCost(PARAGRAPH_TEXT.split(/(?<=[.!?])\s+/).slice(0, 8))
  console.log(`aligner alone: festival speech ${cost.seconds.toFixed(1)} s in 8 sentences, ${cost.aligned} aligned (the rest fell back) | wall ${cost.wall.toFixed(0)} ms, CPU ${cost.cpu.toFixed(0)} ms (${(cost.cpu / cost.seconds / 10).toFixed(2)} % of the audio's duration)`)
}
