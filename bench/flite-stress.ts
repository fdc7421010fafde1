/**
 * `npm run stress:flite [-- runs]`: thousands of flite syntheses in this one process, every voice, many at a
 * time, a share of them aborted at a random moment (before, during or between sentences). A crash of the
 * engine's runtime kills the process, so reaching the summary is the first result; the second is that every
 * synthesis that was not aborted gave speech with word timings, and the same as every other run of the same
 * request (a reused instance that leaked state from one run into the next would differ). The test suite runs a
 * smaller version (src/engines/tts/flite/flite-stress.test.ts). Env: STRESS_CONCURRENCY (default 16),
 * STRESS_SEED (default 12), STRESS_ABORTS (share aborted, default 0.1).
 */
import { pathToFileURL } from 'node:url'
import { concatSamples } from '../src/audio/signal.js'
import { isAbortError } from '../src/errors.js'
import { createFliteEngine, type FliteEngine } from '../src/engines/tts/flite/index.js'

const TEXTS = [
  'Hi.',
  'When the old lighthouse keeper finally retired, the town threw him a party.',
  'The 3 cats ran 25 miles. Then they slept!',
  `Don't “quote” the café, it's 10:30 already?`,
  'Yes. No. Maybe, after a while, we went home.',
  'Numbers like 1,234,567 and 3.14159 and 1999 are read out in full.',
]
const VOICES = ['slt', 'rms', 'awb', 'kal16']

export interface StressOptions {
  readonly runs: number
  readonly concurrency: number
  readonly seed: number
  /** Share of syntheses aborted after a random delay (0–60 ms). */
  readonly abortShare: number
  readonly onProgress?: (done: number) => void
}

export interface StressResult {
  readonly completed: number
  readonly aborted: number
  /** What went wrong, one line per synthesis; empty on success. */
  readonly failures: readonly string[]
}

/** A small seeded generator (mulberry32), so a failing run can be repeated. */
function random(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const sameSamples = (a: Float32Array, b: Float32Array): boolean =>
  a.length === b.length && a.every((v, i) => v === b[i])

export async function stressFlite(engine: FliteEngine, options: StressOptions): Promise<StressResult> {
  const next = random(options.seed)
  const reference = new Map<string, Float32Array>()
  const failures: string[] = []
  let completed = 0
  let aborted = 0
  let started = 0

  async function one(n: number): Promise<void> {
    const voice = VOICES[n % VOICES.length]!
    const text = TEXTS[Math.floor(next() * TEXTS.length)]!
    const rate = next() < 0.2 ? 1.5 : 1
    const abortAfter = next() < options.abortShare ? next() * 60 : undefined
    const controller = new AbortController()
    const timer = abortAfter === undefined ? undefined : setTimeout(() => controller.abort(), abortAfter)
    const label = `#${n} ${voice} rate ${rate} "${text.slice(0, 24)}"`
    const parts: Float32Array[] = []
    let words = 0
    try {
      for await (const chunk of engine.synthesize({ text, voice, rate }, { signal: controller.signal })) {
        parts.push(chunk.samples)
        words += chunk.words.length
      }
    } catch (err) {
      if (controller.signal.aborted && isAbortError(err)) return void aborted++
      return void failures.push(`${label}: ${err instanceof Error ? err.message : String(err)}`)
    } finally {
      clearTimeout(timer)
    }
    const samples = concatSamples(parts)
    if (samples.length < engine.sampleRate * 0.2 || words === 0) {
      return void failures.push(`${label}: ${samples.length} samples, ${words} words`)
    }
    const key = `${voice}|${rate}|${text}`
    const first = reference.get(key)
    if (!first) reference.set(key, samples)
    else if (!sameSamples(first, samples)) {
      return void failures.push(`${label}: differs from an earlier run of the same request`)
    }
    completed++
  }

  await Promise.all(Array.from({ length: options.concurrency }, async () => {
    while (started < options.runs) {
      await one(started++)
      options.onProgress?.(completed + aborted + failures.length)
    }
  }))
  return { completed, aborted, failures }
}

async function main(): Promise<void> {
  const runs = Number(process.argv[2] ?? 5000)
  const options = {
    runs,
    concurrency: Number(process.env.STRESS_CONCURRENCY ?? 16),
    seed: Number(process.env.STRESS_SEED ?? 12),
    abortShare: Number(process.env.STRESS_ABORTS ?? 0.1),
  }
  const engine = await createFliteEngine()
  const mb = (n: number) => `${(n / 2 ** 20).toFixed(0)} MB`
  const rss0 = process.memoryUsage().rss
  const t0 = performance.now()
  const result = await stressFlite(engine, {
    ...options,
    onProgress: (done) => done % 500 === 0 && process.stdout.write(`${done} (rss ${mb(process.memoryUsage().rss)}) `),
  })
  const seconds = (performance.now() - t0) / 1000
  console.log(`\nflite stress: ${runs} syntheses (${JSON.stringify(options)}), ${engine.workers().all} workers`)
  console.log(`completed ${result.completed}, aborted ${result.aborted}, failed ${result.failures.length} ` +
    `in ${seconds.toFixed(1)} s; rss ${mb(rss0)} → ${mb(process.memoryUsage().rss)}`)
  for (const f of result.failures.slice(0, 20)) console.log(`  ${f}`)
  await engine.close()
  process.exitCode = result.failures.length === 0 ? 0 : 1
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main()
