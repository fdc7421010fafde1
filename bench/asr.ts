/**
 * ASR benchmark: real-time factor and peak RSS of Parla's pocketsphinx pipeline (VAD + parallel in-process
 * decoding) on 60 s and 10 min of festival speech, one request and 4 at once, plus the same 60 s file
 * through the `pocketsphinx_continuous` CLI. Run: npx tsx bench/asr.ts
 */
import { spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { availableParallelism, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { resampleAll } from '../src/audio/resample.js'
import { SENTENCES, speakAll, writeWav } from '../src/asr/test-speech.js'
import { transcribe } from '../src/asr/transcribe.js'
import { corpusWer } from '../src/asr/wer.js'
import { createPocketsphinxEngine, type DecoderPreset } from '../src/engines/asr/pocketsphinx/index.js'
import type { AsrEngine } from '../src/engines/asr/types.js'

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

async function measure(engine: AsrEngine, file: { samples: Float32Array, text: string }, concurrent: number): Promise<Run> {
  // Distinct buffers, as separate requests would have; the requests do not modify their input.
  const inputs = Array.from({ length: concurrent }, (_, i) => (i === 0 ? file.samples : file.samples.slice()))
  peakRss = process.memoryUsage.rss()
  const cpu0 = process.cpuUsage()
  const t0 = performance.now()
  const results = await Promise.all(inputs.map((samples) =>
    transcribe(engine, { samples, sampleRate: RATE }, { language: 'en', timestamps: true })))
  const wall = (performance.now() - t0) / 1000
  const cpuUsed = process.cpuUsage(cpu0)
  peakRss = Math.max(peakRss, process.memoryUsage.rss())
  const wer = corpusWer(results.map((r) => ({ reference: file.text, hypothesis: r.text }))).wer
  return { wall, cpu: (cpuUsed.user + cpuUsed.system) / 1e6, wer, peakMb: peakRss / 1e6 }
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

async function main(): Promise<void> {
  console.log(`cores ${availableParallelism()}, load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`)
  const clips = (await speakAll(SENTENCES)).map((a) => resampleAll(a.samples, a.sampleRate, RATE))
  const files = { '60 s': buildFile(clips, 60), '10 min': buildFile(clips, 600) }

  const t0 = performance.now()
  const engine = createPocketsphinxEngine()
  await engine.ready()
  console.log(`engine: ${engine.capabilities.parallelism} workers ready in ${fmt((performance.now() - t0) / 1000, 2)} s, ` +
    `RSS ${fmt(process.memoryUsage.rss() / 1e6, 0)} MB with the test audio loaded`)
  console.log('file     requests  wall s   RTF    CPU-RTF  WER    peak RSS MB')
  for (const [name, file] of Object.entries(files)) {
    for (const concurrent of [1, 4]) {
      const r = await measure(engine, file, concurrent)
      const audio = (file.samples.length / RATE) * concurrent
      console.log(`${name.padEnd(8)} ${String(concurrent).padStart(8)}  ${fmt(r.wall, 2).padStart(6)}  ${fmt(r.wall / audio)}  ${fmt(r.cpu / audio)}    ${fmt(r.wer * 100, 1).padStart(4)}%  ${fmt(r.peakMb, 0)}`)
    }
  }
  await engine.close()

  // The same 60 s file through the CLI (default settings, model load included) and through Parla.
  const dir = await mkdtemp(join(tmpdir(), 'parla-asr-bench-'))
  try {
    const wav = join(dir, 'x.wav')
    await writeWav(wav, files['60 s'].samples, RATE)
    // Best of three everywhere: the machine is shared, and the minimum is the least disturbed figure.
    const cliRuns = [await runCli(wav), await runCli(wav), await runCli(wav)]
    const cli = cliRuns.reduce((a, b) => (b.wall < a.wall ? b : a))
    const cliCpu = Math.min(...cliRuns.map((r) => r.cpu))
    const cliWer = corpusWer([{ reference: files['60 s'].text, hypothesis: cli.text }]).wer
    console.log(`\npocketsphinx_continuous -infile x.wav (60 s, default settings, model load included): ` +
      `${fmt(cli.wall, 2)} s wall, ${fmt(cliCpu, 2)} s CPU, RTF ${fmt(cli.wall / 60)}, peak RSS ${fmt(cli.rssMb, 0)} MB, ` +
      `WER ${fmt(cliWer * 100, 1)}%`)
    const configs = [['balanced', undefined], ['balanced', 1], ['accurate', 1], ['accurate', undefined]] as const
    for (const [preset, workers] of configs) {
      const t1 = performance.now()
      const e = createPocketsphinxEngine({ preset: preset as DecoderPreset, ...(workers ? { workers } : {}) })
      await e.ready()
      const startup = (performance.now() - t1) / 1000
      const runs = [await measure(e, files['60 s'], 1), await measure(e, files['60 s'], 1), await measure(e, files['60 s'], 1)]
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
