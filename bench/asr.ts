/**
 * ASR benchmark: real-time factor and peak RSS of a Parla server (its own process) answering `POST /v1/asr`
 * on 60 s and 10 min of festival speech sent as 16-bit WAV (or MP3), one request and 4 at once, plus the
 * pocketsphinx engine alone and the `pocketsphinx_continuous` CLI on the same 60 s file.
 * First, the real-speech set (test/fixtures/real-speech): Parla's WER per upload format beside the CLI's.
 * Then `/v1/audio/transcriptions` against `/v1/asr` on the 60 s file (bench/protocols.ts).
 * Run: npm run bench:asr [-- --upload mp3] [--all-engines] [--real-only]; BENCH_ONLY=protocols runs only that comparison.
 */
import { execFileSync, spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { availableParallelism, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { resampleAll } from '../src/audio/resample.js'
import { SENTENCES, speakAll, toWav, writeWav } from '../test/support/asr-speech.js'
import { transcribe } from '../src/asr/transcribe.js'
import { corpusWer } from '../src/asr/wer.js'
import { createPocketsphinxEngine, type DecoderPreset } from '../src/engines/asr/pocketsphinx/index.js'
import type { AsrEngine } from '../src/engines/asr/types.js'
import { processTreeCpuMs } from './proc-cpu.js'
import { asrProtocols } from './protocols.js'
import { runRealSpeech } from './real-speech.js'
import { processMemory, resetPeakMemory, startBenchServer, type BenchServer, type Warm } from './server.js'

const RATE = 16_000
const GAP = 0.6

/** Festival sentences with short pauses, repeated and cut to `seconds`; the reference text goes along. */
function buildFile(clips: Float32Array[], seconds: number): { samples: Float32Array, text: string } {
  const samples = new Float32Array(Math.round(seconds * RATE))
  const words: string[] = []
  let at = 0
  for (let i = 0; at < samples.length; i++) {
    at += Math.round(GAP * RATE)
    const clip = clips[i % clips.length]!
    if (at + clip.length > samples.length) break
    samples.set(clip, at)
    words.push(SENTENCES[i % clips.length]!)
    at += clip.length
  }
  return { samples, text: words.join(' ') }
}

interface Run { wall: number, cpu: number, wer: number, peakMb?: number }

/** Runs `concurrent` calls at once in this process; `one(i)` is call i. For the engine alone. */
async function measure(reference: string, concurrent: number, one: (i: number) => Promise<{ text: string }>): Promise<Run> {
  const cpu0 = process.cpuUsage()
  const t0 = performance.now()
  const results = await Promise.all(Array.from({ length: concurrent }, (_, i) => one(i)))
  const wall = (performance.now() - t0) / 1000
  const cpuUsed = process.cpuUsage(cpu0)
  const wer = corpusWer(results.map((r) => ({ reference, hypothesis: r.text }))).wer
  return { wall, cpu: (cpuUsed.user + cpuUsed.system) / 1e6, wer }
}

interface Upload { bytes: Uint8Array, text: string, seconds: number }

/**
 * `concurrent` real `POST /v1/asr` multipart uploads at once, as the `fish-audio` SDK sends them; the peak
 * is the server process's own (VmHWM over this window), so the benchmark's test audio is not in it.
 */
async function measureServer(server: BenchServer, file: Upload, concurrent: number): Promise<Run> {
  resetPeakMemory(server.pid)
  const cpu0 = processTreeCpuMs(server.pid) / 1000
  const t0 = performance.now()
  const texts = await Promise.all(Array.from({ length: concurrent }, async () => {
    const form = new FormData()
    form.append('audio', new Blob([file.bytes]), `bench.${UPLOAD}`)
    form.append('ignore_timestamps', 'false')
    const res = await fetch(`${server.url}/v1/asr`, { method: 'POST', headers: { authorization: `Bearer ${server.key}` }, body: form })
    if (!res.ok) throw new Error(`/v1/asr answered ${res.status}: ${await res.text()}`)
    return ((await res.json()) as { text: string }).text
  }))
  const wall = (performance.now() - t0) / 1000
  const wer = corpusWer(texts.map((hypothesis) => ({ reference: file.text, hypothesis }))).wer
  return { wall, cpu: processTreeCpuMs(server.pid) / 1000 - cpu0, wer, peakMb: processMemory(server.pid).peakMb }
}

/** The engine alone on samples already at 16 kHz (no queue, no file decoding): for the CLI comparison. */
function measureEngine(engine: AsrEngine, file: { samples: Float32Array, text: string }): Promise<Run> {
  return measure(file.text, 1, () =>
    transcribe(engine, { samples: file.samples, sampleRate: RATE }, { language: 'en', timestamps: true }))
}

/** Runs the CLI under /usr/bin/time: wall and CPU seconds, its peak RSS, and its transcript. */
function runCli(file: string): Promise<{ wall: number, cpu: number, rssMb: number, text: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('/usr/bin/time', ['-f', '@@%e %U %S %M', 'pocketsphinx_continuous', '-infile', file, '-logfn', '/dev/null'])
    let out = ''
    let err = ''
    child.stdout.on('data', (d: Buffer) => { out += d.toString() })
    child.stderr.on('data', (d: Buffer) => { err += d.toString() })
    child.on('error', reject)
    child.on('close', (code) => {
      const m = /@@([\d.]+) ([\d.]+) ([\d.]+) (\d+)/.exec(err)
      if (code !== 0 || !m) return reject(new Error(`pocketsphinx_continuous failed (${code}): ${err}`))
      resolve({ wall: Number(m[1]), cpu: Number(m[2]) + Number(m[3]), rssMb: Number(m[4]) / 1024, text: out })
    })
  })
}

const fmt = (x: number, d = 3) => x.toFixed(d)

/**
 * `--upload mp3` sends the files as 64 kbit/s MP3 (ffmpeg), as a client with a long recording usually would,
 * instead of 16-bit WAV (10 min = 19 MB, the largest upload the 20 MB limit allows).
 */
const UPLOAD = process.argv.includes('--upload') ? process.argv[process.argv.indexOf('--upload') + 1] : 'wav'
if (UPLOAD !== 'wav' && UPLOAD !== 'mp3') throw new Error(`--upload takes wav or mp3, not ${UPLOAD}`)

/**
 * `--all-engines` warms the TTS engines too, as `parla serve` does: the whole server's memory under the same
 * ASR load (festival runs in its own processes, not counted).
 */
const WARM: Warm[] = process.argv.includes('--all-engines') ? ['tts', 'asr'] : ['asr']

function encodeUpload(samples: Float32Array): Uint8Array {
  const wav = toWav(samples, RATE)
  if (UPLOAD === 'wav') return wav
  const args = ['-v', 'error', '-f', 'wav', '-i', 'pipe:0', '-c:a', 'libmp3lame', '-b:a', '64k', '-f', 'mp3', 'pipe:1']
  return new Uint8Array(execFileSync('ffmpeg', args, { input: wav, maxBuffer: 64 * 1024 * 1024 }))
}

/** Real human speech: Parla (default preset) per upload format and the CLI, WER over the whole set. */
async function realSpeech(): Promise<void> {
  const r = await runRealSpeech()
  const pct = (x: number) => `${fmt(x * 100, 1)}%`
  console.log(`real speech (${r.rows.length} recordings, test/fixtures/real-speech): pocketsphinx_continuous WER ` +
    `${pct(r.cliWer)}; Parla WER: WAV ${pct(r.parlaWer.wav)}, MP3 ${pct(r.parlaWer.mp3)}, Opus ${pct(r.parlaWer.opus)}`)
}

async function main(): Promise<void> {
  console.log(`cores ${availableParallelism()}, load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`)
  if (process.env.BENCH_ONLY !== 'protocols') await realSpeech()
  if (process.argv.includes('--real-only')) return
  const clips = (await speakAll(SENTENCES)).map((a) => resampleAll(a.samples, a.sampleRate, RATE))
  const short = buildFile(clips, 60)
  const upload = (f: { samples: Float32Array, text: string }): Upload =>
    ({ bytes: encodeUpload(f.samples), text: f.text, seconds: f.samples.length / RATE })
  const uploads: Record<string, Upload> = { '60 s': upload(short), '10 min': upload(buildFile(clips, 600)) }

  // A real server in its own process. By default it serves speech to text only: its TTS engines start on
  // first use, which these requests never are, so its memory is what ASR traffic costs.
  const t0 = performance.now()
  const server = await startBenchServer({}, WARM)
  const idle = processMemory(server.pid)
  console.log(`server: ${WARM.join(' and ')} warmed up in ${fmt((performance.now() - t0) / 1000, 2)} s (process start included), ` +
    `RSS ${fmt(idle.rssMb, 0)} MB idle; uploads as ${UPLOAD} ` +
    `(${Object.values(uploads).map((u) => fmt(u.bytes.length / 1e6, 1)).join(' and ')} MB), multipart over HTTP`)
  try {
    await asrProtocols(server, uploads['60 s']!.bytes, 60, Number(process.env.BENCH_RUNS ?? 5))
    if (process.env.BENCH_ONLY === 'protocols') return
    console.log('\nfile     requests  wall s   RTF    CPU-RTF  WER    server peak RSS MB')
    for (const [name, file] of Object.entries(uploads)) {
      for (const concurrent of [1, 4]) {
        const r = await measureServer(server, file, concurrent)
        const audio = file.seconds * concurrent
        console.log(`${name.padEnd(8)} ${String(concurrent).padStart(8)}  ${fmt(r.wall, 2).padStart(6)}  ${fmt(r.wall / audio)}  ${fmt(r.cpu / audio)}    ${fmt(r.wer * 100, 1).padStart(4)}%  ${fmt(r.peakMb!, 0)}`)
      }
    }
  } finally {
    await server.stop()
  }

  // The same 60 s file through the CLI (default settings, model load included) and through Parla.
  const dir = await mkdtemp(join(tmpdir(), 'parla-asr-bench-'))
  try {
    const wav = join(dir, 'x.wav')
    await writeWav(wav, short.samples, RATE)
    // Best of three everywhere: the machine is shared, and the minimum is the least disturbed figure.
    const cliRuns = [await runCli(wav), await runCli(wav), await runCli(wav)]
    const cli = cliRuns.reduce((a, b) => (b.wall < a.wall ? b : a))
    const cliCpu = Math.min(...cliRuns.map((r) => r.cpu))
    const cliWer = corpusWer([{ reference: short.text, hypothesis: cli.text }]).wer
    console.log(`\npocketsphinx_continuous -infile x.wav (60 s, default settings, model load included): ` +
      `${fmt(cli.wall, 2)} s wall, ${fmt(cliCpu, 2)} s CPU, RTF ${fmt(cli.wall / 60)}, peak RSS ${fmt(cli.rssMb, 0)} MB, ` +
      `WER ${fmt(cliWer * 100, 1)}%`)
    const configs = [['balanced', undefined], ['balanced', 1], ['accurate', 1], ['accurate', undefined]] as const
    for (const [preset, workers] of configs) {
      const t1 = performance.now()
      const e = createPocketsphinxEngine({ preset: preset as DecoderPreset, ...(workers ? { workers } : {}) })
      await e.ready()
      const startup = (performance.now() - t1) / 1000
      const runs = [await measureEngine(e, short), await measureEngine(e, short), await measureEngine(e, short)]
      await e.close()
      const wall = Math.min(...runs.map((r) => r.wall))
      const cpu = Math.min(...runs.map((r) => r.cpu))
      console.log(`Parla in-process, ${preset}, ${e.capabilities.parallelism} worker(s): ${fmt(wall, 2)} s wall, ` +
        `${fmt(cpu, 2)} s CPU, WER ${fmt(runs[0]!.wer * 100, 1)}%; Parla/CLI wall ratio ${fmt(wall / cli.wall, 2)} ` +
        `(${fmt((wall + startup) / cli.wall, 2)} counting ${fmt(startup, 2)} s start-up), CPU ratio ${fmt(cpu / cliCpu, 2)}`)
    }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

await main()
