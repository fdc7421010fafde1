/**
 * ASR benchmark: real-time factor and peak RSS of Parla's pocketsphinx pipeline (VAD + parallel in-process
 * decoding) on 60 s and 10 min of festival speech, one request and 4 at once, plus the same 60 s file
 * through the `pocketsphinx_continuous` CLI. Run: npx tsx bench/asr.ts
 */
import { spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { availableParallelism, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { resampleAll } from '../src/asr/resample.js'
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
  const inputs = Array.from({ length: concurrent }, () => file.samples.slice())
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

function runCli(file: string): Promise<{ wall: number, text: string }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now()
    const child = spawn('pocketsphinx_continuous', ['-infile', file, '-logfn', '/dev/null'], { stdio: ['ignore', 'pipe', 'ignore'] })
    let out = ''
    child.stdout.on('data', (d: Buffer) => { out += d.toString() })
    child.on('error', reject)
    child.on('close', (code) => code === 0
      ? resolve({ wall: (performance.now() - t0) / 1000, text: out })
      : reject(new Error(`pocketsphinx_continuous exited ${code}`)))
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
  console.log(`engine: ${engine.capabilities.parallelism} workers ready in ${fmt((performance.now() - t0) / 1000, 2)} s`)
  console.log('file     requests  wall s   RTF    CPU-RTF  WER    peak RSS MB')
  const rows: Record<string, Run> = {}
  for (const [name, file] of Object.entries(files)) {
    for (const concurrent of [1, 4]) {
      const r = await measure(engine, file, concurrent)
      rows[`${name} x${concurrent}`] = r
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
    const cli = await runCli(wav)
    const cliWer = corpusWer([{ reference: files['60 s'].text, hypothesis: cli.text }]).wer
    console.log(`\npocketsphinx_continuous -infile x.wav (60 s): ${fmt(cli.wall, 2)} s wall, RTF ${fmt(cli.wall / 60)}, WER ${fmt(cliWer * 100, 1)}%`)
    const parla = rows['60 s x1']!
    console.log(`Parla / CLI, 60 s, warm engine: ${fmt(parla.wall / cli.wall, 2)}`)
    for (const [preset, workers] of [['accurate', 1], ['balanced', 1], ['balanced', undefined]] as const) {
      const t1 = performance.now()
      const e = createPocketsphinxEngine({ preset: preset as DecoderPreset, ...(workers ? { workers } : {}) })
      await e.ready()
      const r = await measure(e, files['60 s'], 1)
      const cold = (performance.now() - t1) / 1000
      await e.close()
      console.log(`  in-process ${preset}, ${e.capabilities.parallelism} worker(s): ${fmt(r.wall, 2)} s warm (ratio ${fmt(r.wall / cli.wall, 2)}), ` +
        `${fmt(cold, 2)} s including start-up (ratio ${fmt(cold / cli.wall, 2)}), WER ${fmt(r.wer * 100, 1)}%`)
    }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
  console.log(`\npeak RSS of this process over the whole run: ${fmt(process.resourceUsage().maxRSS / 1024, 0)} MB`)
}

await main()
