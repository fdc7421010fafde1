/**
 * ASR benchmark: real-time factor and peak RSS of Parla's `/v1/asr` pipeline (the ASR service: request
 * queue, WAV decoding in a worker, VAD, parallel in-process pocketsphinx) on 60 s and 10 min of festival
 * speech sent as 16-bit WAV (or MP3), one request and 4 at once, plus the same 60 s file through the
 * `pocketsphinx_continuous` CLI. Run: npx tsx bench/asr.ts [--upload mp3]
 */
import { execFileSync, spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { availableParallelism, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { resampleAll } from '../src/audio/resample.js'
import { SENTENCES, speakAll, toWav, writeWav } from '../src/asr/test-speech.js'
import { transcribe } from '../src/asr/transcribe.js'
import { corpusWer } from '../src/asr/wer.js'
import { createPocketsphinxEngine, type DecoderPreset } from '../src/engines/asr/pocketsphinx/index.js'
import type { AsrEngine } from '../src/engines/asr/types.js'
import { createAsrService, type AsrService } from '../src/services/asr/service.js'

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

let peakRss = 0
const sampler = setInterval(() => { peakRss = Math.max(peakRss, process.memoryUsage.rss()) }, 20)
sampler.unref()

interface Run { wall: number, cpu: number, wer: number, peakMb: number }

/** Runs `concurrent` requests at once; `one(i)` is request i. */
async function measure(reference: string, concurrent: number, one: (i: number) => Promise<{ text: string }>): Promise<Run> {
  peakRss = process.memoryUsage.rss()
  const cpu0 = process.cpuUsage()
  const t0 = performance.now()
  const results = await Promise.all(Array.from({ length: concurrent }, (_, i) => one(i)))
  const wall = (performance.now() - t0) / 1000
  const cpuUsed = process.cpuUsage(cpu0)
  peakRss = Math.max(peakRss, process.memoryUsage.rss())
  const wer = corpusWer(results.map((r) => ({ reference, hypothesis: r.text }))).wer
  return { wall, cpu: (cpuUsed.user + cpuUsed.system) / 1e6, wer, peakMb: peakRss / 1e6 }
}

interface Upload { wav: Uint8Array, text: string, seconds: number }

/** Requests through the service, each with its own copy of the upload, as separate HTTP requests would have. */
function measureService(service: AsrService, file: Upload, concurrent: number): Promise<Run> {
  const uploads = Array.from({ length: concurrent }, () => file.wav.slice())
  return measure(file.text, concurrent, (i) =>
    service.transcribe({ audio: uploads[i]!, filename: 'bench.wav', ignoreTimestamps: false }))
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

function encodeUpload(samples: Float32Array): Uint8Array {
  const wav = toWav(samples, RATE)
  if (UPLOAD === 'wav') return wav
  const args = ['-v', 'error', '-f', 'wav', '-i', 'pipe:0', '-c:a', 'libmp3lame', '-b:a', '64k', '-f', 'mp3', 'pipe:1']
  return new Uint8Array(execFileSync('ffmpeg', args, { input: wav, maxBuffer: 64 * 1024 * 1024 }))
}

async function main(): Promise<void> {
  console.log(`cores ${availableParallelism()}, load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`)
  const clips = (await speakAll(SENTENCES)).map((a) => resampleAll(a.samples, a.sampleRate, RATE))
  // Only the uploads (16-bit WAV, as a client sends them) stay in memory, plus the 60 s samples for the CLI
  // comparison, so the peak RSS is mostly the server's rather than this script's.
  const short = buildFile(clips, 60)
  const upload = (f: { samples: Float32Array, text: string }): Upload =>
    ({ wav: encodeUpload(f.samples), text: f.text, seconds: f.samples.length / RATE })
  const uploads: Record<string, Upload> = { '60 s': upload(short), '10 min': upload(buildFile(clips, 600)) }

  const t0 = performance.now()
  const engine = createPocketsphinxEngine()
  await engine.ready()
  console.log(`engine: ${engine.capabilities.parallelism} workers ready in ${fmt((performance.now() - t0) / 1000, 2)} s, ` +
    `RSS ${fmt(process.memoryUsage.rss() / 1e6, 0)} MB with the test audio loaded`)
  const service = createAsrService({ workers: 0, engine: () => engine })
  console.log(`service: at most ${service.load.limit} requests decoded and transcribed at once, the rest queue; ` +
    `uploads as ${UPLOAD} (${Object.values(uploads).map((u) => fmt(u.wav.length / 1e6, 1)).join(' and ')} MB)`)
  console.log('file     requests  wall s   RTF    CPU-RTF  WER    peak RSS MB')
  for (const [name, file] of Object.entries(uploads)) {
    for (const concurrent of [1, 4]) {
      const r = await measureService(service, file, concurrent)
      const audio = file.seconds * concurrent
      console.log(`${name.padEnd(8)} ${String(concurrent).padStart(8)}  ${fmt(r.wall, 2).padStart(6)}  ${fmt(r.wall / audio)}  ${fmt(r.cpu / audio)}    ${fmt(r.wer * 100, 1).padStart(4)}%  ${fmt(r.peakMb, 0)}`)
    }
  }
  await engine.close()

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
  console.log(`\npeak RSS of this process over the whole run (several engines in turn): ` +
    `${fmt(process.resourceUsage().maxRSS / 1024, 0)} MB`)
}

await main()
