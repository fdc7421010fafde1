/**
 * `bench:neural`'s speech-to-text part: a Whisper package at its published size (random weights, a planted
 * sentence; scripts/models/whisper/build.sh --dims) on 60 s of real speech, through Parla and directly.
 *
 * The file: the real-speech recordings (test/fixtures/real-speech) one after another, 0.4 s apart, to 60 s.
 * Parla: `POST /v1/asr` (16-bit WAV, multipart, as the SDKs send it) to a server in a child process whose
 * `asrEngine` is the package (one neural process, one thread). Directly: sherpa-onnx-node's OfflineRecognizer
 * in this process (one thread, the package's own tokens file), given the same pieces Parla's VAD cuts (Whisper
 * takes at most 30 s per call, so every caller cuts), one after another. Parla ÷ direct is then Parla's own
 * cost: the upload, decoding the WAV, the VAD, the process hop and the words' times. A third line runs the
 * recognizer directly on those pieces joined while each stays within 28 s: what cutting only where Whisper
 * must would cost (each call runs the encoder on its audio plus 10 s of padding, however short the piece).
 * Neither side is told the language (the multilingual model detects it, one decoder step per piece).
 */
import { createRequire } from 'node:module'
import { readFileSync } from 'node:fs'
import { detectSpeech, type SpeechSpan } from '../src/asr/vad.js'
import { detectPackage } from '../src/models/detect.js'
import { parseWav, toWav } from '../test/support/wav.js'
import { neuralHosts } from './neural-paths.js'
import { processTreeCpuMs } from './proc-cpu.js'
import { realSpeechClips } from './real-speech.js'
import { processMemory, startBenchServer, type BenchServer } from './server.js'
import { mean, median } from './stats.js'

const RATE = 16_000
const SECONDS = 60
const GAP_SECONDS = 0.4
/** The longest piece Parla's Whisper engine takes (src/engines/asr/neural/index.ts, maxUtteranceSeconds). */
const WHISPER_MAX_PIECE_SECONDS = 28

interface Stream { acceptWaveform(w: { sampleRate: number; samples: Float32Array }): void }
interface Recognizer { createStream(): Stream; decodeAsync(s: Stream): Promise<{ text: string; tokens?: string[] }> }
const sherpa = createRequire(import.meta.url)('sherpa-onnx-node') as { OfflineRecognizer: { createAsync(c: unknown): Promise<Recognizer> } }
const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000 }
const rssMb = () => process.memoryUsage().rss / 2 ** 20

/** The 60 s file as WAV bytes, and the 16-bit samples Parla reads from them. */
function realSpeechMinute(): { wav: Uint8Array; pcm: Int16Array; speechSeconds: number } {
  const clips = realSpeechClips().map((c) => parseWav(new Uint8Array(readFileSync(c.path))))
  if (clips.some((c) => c.sampleRate !== RATE)) throw new Error('the real-speech recordings are 16 kHz')
  const floats = new Float32Array(SECONDS * RATE)
  let at = 0
  let speech = 0
  for (let i = 0; ; i++) {
    const clip = clips[i % clips.length]!.samples
    if (at + clip.length > floats.length) break
    floats.set(clip, at)
    at += clip.length + Math.round(GAP_SECONDS * RATE)
    speech += clip.length
  }
  const wav = toWav(floats, RATE)
  // The reader divides by 32768: the samples Parla decodes, exactly.
  const pcm = Int16Array.from(parseWav(wav).samples, (v) => Math.round(v * 32768))
  return { wav, pcm, speechSeconds: speech / RATE }
}

interface Run { readonly total: number; readonly cpu: number; readonly text: string; readonly tokens?: number }

/** Adjacent pieces joined while the whole stays within `max` seconds. */
function joined(pieces: readonly SpeechSpan[], max: number): SpeechSpan[] {
  const out: SpeechSpan[] = []
  for (const p of pieces) {
    const last = out[out.length - 1]
    if (last && p.end - last.start <= max) out[out.length - 1] = { start: last.start, end: p.end }
    else out.push(p)
  }
  return out
}

/** Transcribes `pieces` of `pcm` one after another, as Parla's one process does. */
async function direct(recognizer: Recognizer, pcm: Int16Array, pieces: readonly SpeechSpan[]): Promise<Run> {
  const t0 = performance.now()
  const c0 = cpuMs()
  const texts: string[] = []
  let tokens = 0
  for (const p of pieces) {
    // As Parla's engine: the piece's 16-bit samples as floats (÷ 32768).
    const samples = Float32Array.from(pcm.subarray(Math.round(p.start * RATE), Math.round(p.end * RATE)), (v) => v / 32768)
    const stream = recognizer.createStream()
    stream.acceptWaveform({ sampleRate: RATE, samples })
    const r = await recognizer.decodeAsync(stream)
    texts.push(r.text.trim())
    tokens += r.tokens?.length ?? 0
  }
  return { total: performance.now() - t0, cpu: cpuMs() - c0, text: texts.join(' '), tokens }
}

/** One `POST /v1/asr` of the WAV file. */
async function throughParla(server: BenchServer, wav: Uint8Array): Promise<Run & { language?: string }> {
  const c0 = processTreeCpuMs(server.pid)
  const t0 = performance.now()
  const form = new FormData()
  form.append('audio', new Blob([wav]), 'minute.wav')
  form.append('ignore_timestamps', 'false')
  const res = await fetch(new URL('/v1/asr', server.url), { method: 'POST', headers: { authorization: `Bearer ${server.key}` }, body: form })
  if (!res.ok) throw new Error(`/v1/asr answered ${res.status}: ${await res.text()}`)
  const body = await res.json() as { text: string; language?: string }
  return { total: performance.now() - t0, cpu: processTreeCpuMs(server.pid) - c0, text: body.text, ...(body.language !== undefined && { language: body.language }) }
}

/** Whisper package `name` of `modelsDir`: load, memory, and `runs` transcriptions each way, alternating. */
export async function benchWhisper(modelsDir: string, name: string, runs: number): Promise<void> {
  const pkg = await detectPackage(modelsDir, name)
  if (!pkg?.asr || !pkg.runnable) throw new Error(`${name} in ${modelsDir} is not an ASR package Parla runs (${pkg?.note ?? 'not found'})`)
  const { wav, pcm, speechSeconds } = realSpeechMinute()
  const pieces = await detectSpeech(pcm, { sampleRate: RATE, maxSeconds: WHISPER_MAX_PIECE_SECONDS })
  const before = rssMb()
  const recognizer = await sherpa.OfflineRecognizer.createAsync({
    modelConfig: { ...pkg.asr.model, tokens: pkg.asr.tokens, numThreads: 1, provider: 'cpu', debug: 0 },
    featConfig: { sampleRate: RATE, featureDim: 80 },
  })
  const loadedMb = rssMb() - before
  const server = await startBenchServer({ modelsDir, asrEngine: name, neuralProcesses: 1, neuralThreads: 1 }, ['asr'])
  try {
    // One call each first: the server's process starts and loads the model; the runtimes size their buffers.
    const firstDirect = await direct(recognizer, pcm, pieces)
    const firstParla = await throughParla(server, wav)
    const afterOneMb = rssMb() - before
    const hosts = neuralHosts(server).map((pid) => processMemory(pid).rssMb)
    const lengths = pieces.map((p) => p.end - p.start)
    console.log(`${name}: 60 s of real speech (${speechSeconds.toFixed(1)} s of it recordings), cut by Parla's VAD into ${pieces.length} pieces of ${Math.min(...lengths).toFixed(1)}–${Math.max(...lengths).toFixed(1)} s; ` +
      `${firstDirect.tokens} tokens decoded (${(firstDirect.tokens! / SECONDS).toFixed(1)} per second of audio)`)
    console.log(`  the model adds ${loadedMb.toFixed(0)} MB resident to the process that loads it (${afterOneMb.toFixed(0)} MB after one transcription); Parla's neural process ${hosts.map((mb) => mb.toFixed(0)).join(', ')} MB resident after one; language reported ${firstParla.language ?? '-'}`)
    console.log(`  text (direct): ${JSON.stringify(firstDirect.text.slice(0, 80))}…; Parla's text ${firstParla.text === firstDirect.text ? 'is the same' : `differs: ${JSON.stringify(firstParla.text.slice(0, 80))}…`}`)
    const long = joined(pieces, WHISPER_MAX_PIECE_SECONDS)
    const alone: Run[] = []
    const parla: Run[] = []
    const longer: Run[] = []
    for (let i = 0; i < runs; i++) {
      alone.push(await direct(recognizer, pcm, pieces))
      parla.push(await throughParla(server, wav))
      longer.push(await direct(recognizer, pcm, long))
    }
    const dTotal = median(alone.map((r) => r.total))
    const pTotal = median(parla.map((r) => r.total))
    const jTotal = median(longer.map((r) => r.total))
    const dCpu = mean(alone.map((r) => r.cpu))
    const pCpu = mean(parla.map((r) => r.cpu))
    const rtf = (ms: number) => (ms / 1000 / SECONDS).toFixed(3)
    console.log(`  ${runs} runs each | direct ${(dTotal / 1000).toFixed(2)} s (RTF ${rtf(dTotal)}, CPU ${(dCpu / 1000).toFixed(2)} s) | Parla /v1/asr ${(pTotal / 1000).toFixed(2)} s (RTF ${rtf(pTotal)}, CPU ${(pCpu / 1000).toFixed(2)} s)`)
    console.log(`  Parla/direct: total ${(pTotal / dTotal).toFixed(3)}×, CPU ${(pCpu / dCpu).toFixed(3)}×`)
    console.log(`  direct on the pieces joined up to ${WHISPER_MAX_PIECE_SECONDS} s (${long.length} calls, ${longer[0]!.tokens} tokens): ${(jTotal / 1000).toFixed(2)} s (RTF ${rtf(jTotal)}, CPU ${(mean(longer.map((r) => r.cpu)) / 1000).toFixed(2)} s)`)
  } finally {
    await server.stop()
  }
}
