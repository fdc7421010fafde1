/**
 * Live transcription benchmark: the real-speech set (test/fixtures/real-speech) streamed at real time, in 20 ms
 * frames of 24 kHz PCM, through the services layer's live sessions (server VAD, the default settings) with
 * pocketsphinx. Prints per clip and overall: first partial after speech_started, end of speech → final
 * (from the clip's last sample, which includes the silence the detector waits for, and from speech_stopped),
 * the finals' WER beside the whole-file route's on the same files, and how many sessions at once keep up.
 * `--model DIR` runs a sherpa-onnx streaming (online) model package instead of pocketsphinx, `--workers` of its
 * runtime processes with one thread each.
 * `--silence MS` sets the turn detector's silence (OpenAI's `silence_duration_ms`; 500 by default).
 * Run: npm run bench:live-asr [-- --sessions 2,4,8] [--workers N] [--model DIR] [--silence MS]
 */
import { readFileSync } from 'node:fs'
import { availableParallelism, loadavg } from 'node:os'
import { basename, dirname, resolve } from 'node:path'
import { corpusWer } from '../src/asr/wer.js'
import { resampleAll } from '../src/audio/resample.js'
import { concatSamples, float32ToInt16 } from '../src/audio/signal.js'
import { readPcm16Wav } from '../src/audio/wav-header.js'
import { createNeuralAsrEngine } from '../src/engines/asr/neural/index.js'
import { createPocketsphinxEngine } from '../src/engines/asr/pocketsphinx/index.js'
import type { AsrEngine } from '../src/engines/asr/types.js'
import { detectPackage } from '../src/models/detect.js'
import { createAsrService, type AsrService } from '../src/services/asr/service.js'
import { DEFAULT_TURN } from '../src/services/asr/live/turn-detector.js'
import { processTreeCpuMs } from './proc-cpu.js'
import { percentile } from './stats.js'
import { realSpeechClips, type RealClip } from './real-speech.js'

const RATE = 24_000
const FRAME_MS = 20
const LEAD_SEC = 0.5
const TAIL_SEC = 1.5
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 ? process.argv[i + 1] : undefined
}

interface ClipRun {
  readonly clip: RealClip
  readonly firstPartialMs: number | undefined
  readonly finalFromEndMs: number | undefined
  readonly finalFromStopMs: number | undefined
  readonly text: string
  /** The last frame was sent later than its real-time due time by this much (the session fell behind). */
  readonly lateMs: number
}

function streamBytes(clip: RealClip): { bytes: Buffer; speechEndSec: number } {
  const wav = readPcm16Wav(readFileSync(clip.path))
  if (typeof wav === 'string') throw new Error(wav)
  const audio = concatSamples([new Float32Array(LEAD_SEC * 16000), wav.samples, new Float32Array(TAIL_SEC * 16000)])
  return { bytes: Buffer.from(float32ToInt16(resampleAll(audio, 16000, RATE)).buffer), speechEndSec: LEAD_SEC + wav.samples.length / 16000 }
}

/** One clip through one live session at real-time pace. */
async function runClip(asr: AsrService, clip: RealClip): Promise<ClipRun> {
  const turns = { ...DEFAULT_TURN, silenceMs: Number(arg('silence') ?? DEFAULT_TURN.silenceMs) }
  const { bytes, speechEndSec } = streamBytes(clip)
  const session = asr.openLive({ inputRate: RATE, language: 'en', turns, maxBacklogSec: 60 })
  const start = performance.now()
  let startedAt: number | undefined
  let stoppedAt: number | undefined
  let firstPartialMs: number | undefined
  let finalAt: number | undefined
  const texts: string[] = []
  const reading = (async () => {
    for await (const e of session.events()) {
      const now = performance.now()
      if (e.type === 'speech_started') startedAt ??= now
      if (e.type === 'speech_stopped') stoppedAt = now
      if (e.type === 'partial' && firstPartialMs === undefined && startedAt !== undefined && (e.stable || e.tail)) firstPartialMs = now - startedAt
      if (e.type === 'final') {
        finalAt = now
        texts.push(e.text)
      }
    }
  })()
  const step = (RATE * FRAME_MS) / 1000 * 2
  let lateMs = 0
  for (let at = 0, n = 0; at < bytes.length; at += step, n++) {
    const due = start + n * FRAME_MS
    lateMs = Math.max(0, performance.now() - due)
    session.append(bytes.subarray(at, at + step))
    await sleep(Math.max(0, due + FRAME_MS - performance.now()))
  }
  session.end()
  await reading
  const endAt = start + speechEndSec * 1000
  return {
    clip, firstPartialMs, text: texts.join(' '), lateMs,
    finalFromEndMs: finalAt === undefined ? undefined : finalAt - endAt,
    finalFromStopMs: finalAt === undefined || stoppedAt === undefined ? undefined : finalAt - stoppedAt,
  }
}

const ms = (v: number | undefined) => (v === undefined ? '—' : `${Math.round(v)}`)
const defined = (values: (number | undefined)[]) => values.filter((v): v is number => v !== undefined)

/** pocketsphinx, or the sherpa-onnx streaming package at `modelDir`. */
async function chooseEngine(modelDir: string | undefined, workers: number): Promise<{ engine: AsrEngine; name: string }> {
  if (!modelDir) return { engine: createPocketsphinxEngine({ workers }), name: 'pocketsphinx' }
  const path = resolve(modelDir)
  const pkg = await detectPackage(dirname(path), basename(path))
  if (!pkg?.runnable || !pkg.asr?.online) throw new Error(`${path} is not a runnable streaming ASR package: ${pkg?.note ?? 'not recognised'}`)
  return { engine: createNeuralAsrEngine(pkg, { processes: workers, threads: 1 }), name: `${pkg.id} (sherpa-onnx online)` }
}

async function main(): Promise<void> {
  const sessions = (arg('sessions') ?? '1,2,4,8').split(',').map(Number)
  const workers = Number(arg('workers') ?? Math.max(...sessions))
  const clips = realSpeechClips()
  const { engine, name } = await chooseEngine(arg('model'), workers)
  const asr = createAsrService({ workers, concurrency: workers, engine: () => engine })
  await asr.warm()
  console.log(`live ASR bench: ${clips.length} real recordings at real time, ${RATE} Hz in ${FRAME_MS} ms frames, server VAD ` +
    `(silence ${arg('silence') ?? DEFAULT_TURN.silenceMs} ms, padding ${DEFAULT_TURN.prefixPaddingMs} ms), ${name} ${workers} workers; ` +
    `${availableParallelism()} cores, load ${loadavg().map((l) => l.toFixed(2)).join(' ')}, ${new Date().toISOString()}`)

  // One session at a time: latencies and accuracy.
  const runs: ClipRun[] = []
  for (const clip of clips) {
    const r = await runClip(asr, clip)
    runs.push(r)
    console.log(`${clip.file.padEnd(20)} first partial ${ms(r.firstPartialMs).padStart(5)} ms, final ${ms(r.finalFromEndMs).padStart(5)} ms after speech end ` +
      `(${ms(r.finalFromStopMs).padStart(4)} ms after speech_stopped)  "${r.text}"`)
  }
  const batch: string[] = []
  for (const clip of clips) batch.push((await asr.transcribe({ audio: readFileSync(clip.path), filename: clip.file, language: 'en' })).text)
  const liveWer = corpusWer(runs.map((r) => ({ reference: r.clip.text, hypothesis: r.text }))).wer
  const batchWer = corpusWer(clips.map((c, i) => ({ reference: c.text, hypothesis: batch[i]! }))).wer
  const first = defined(runs.map((r) => r.firstPartialMs))
  const fromEnd = defined(runs.map((r) => r.finalFromEndMs))
  const fromStop = defined(runs.map((r) => r.finalFromStopMs))
  console.log(`first partial after speech_started: p50 ${ms(percentile(first, 50))} ms, p95 ${ms(percentile(first, 95))} ms`)
  console.log(`speech end → final: p50 ${ms(percentile(fromEnd, 50))} ms, p95 ${ms(percentile(fromEnd, 95))} ms ` +
    `(speech_stopped → final: p50 ${ms(percentile(fromStop, 50))} ms, p95 ${ms(percentile(fromStop, 95))} ms)`)
  console.log(`WER: live finals ${(liveWer * 100).toFixed(1)} %, whole-file route ${(batchWer * 100).toFixed(1)} % on the same ${clips.length} files`)

  // Several sessions at once, each streaming the whole set in a different order: do they keep up?
  for (const n of sessions.filter((k) => k > 0)) {
    const [cpuBefore, wallBefore] = [processTreeCpuMs(process.pid), performance.now()]
    const all = await Promise.all(Array.from({ length: n }, async (_, k) => {
      const order = clips.map((_, i) => clips[(i + k) % clips.length]!)
      const out: ClipRun[] = []
      for (const clip of order) out.push(await runClip(asr, clip))
      return out
    }))
    const cores = (processTreeCpuMs(process.pid) - cpuBefore) / (performance.now() - wallBefore)
    const flat = all.flat()
    const p50 = percentile(defined(flat.map((r) => r.finalFromStopMs)), 50)
    const p95 = percentile(defined(flat.map((r) => r.finalFromStopMs)), 95)
    const late = Math.max(...flat.map((r) => r.lateMs))
    const missing = flat.filter((r) => r.finalFromEndMs === undefined).length
    const keepUp = missing === 0 && p95 < 1000 && late < 200
    console.log(`${String(n).padStart(2)} sessions at once: speech_stopped → final p50 ${ms(p50)} / p95 ${ms(p95)} ms, ` +
      `turns without final ${missing}, sender late by up to ${ms(late)} ms, CPU ${cores.toFixed(2)} cores (this process and its runtime processes) → ` +
      `${keepUp ? 'keeps up' : 'falls behind'}`)
  }
  await asr.close()
}

await main()
