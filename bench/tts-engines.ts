/**
 * TTS engine benchmark: `npx tsx bench/tts-engines.ts [engine…]`.
 * Per engine: start-up time, time to first chunk for one sentence (p50/p95 over 20 runs), real-time factor
 * and per-sentence latency for a ~2,000-character text, and abort latency.
 */
import { availableParallelism } from 'node:os'
import { loadTtsEngineFactory, ttsEngineIds } from '../src/engines/tts/registry.js'
import type { TtsEngine } from '../src/engines/tts/types.js'
import { PARAGRAPH_TEXT, SENTENCE } from './tts-texts.js'
import { percentile } from './stats.js'

const LONG = PARAGRAPH_TEXT

const VOICE: Record<string, string> = { festival: 'slt', flite: 'slt', 'espeak-ng': 'en-us' }

async function firstChunkMs(engine: TtsEngine, voice: string): Promise<number> {
  const t0 = performance.now()
  for await (const _ of engine.synthesize({ text: SENTENCE, voice })) return performance.now() - t0
  return NaN
}

async function longRun(engine: TtsEngine, voice: string) {
  const t0 = performance.now()
  let samples = 0
  const gaps: number[] = []
  let last = t0
  for await (const chunk of engine.synthesize({ text: LONG, voice })) {
    samples += chunk.samples.length
    gaps.push(performance.now() - last)
    last = performance.now()
  }
  const seconds = samples / engine.sampleRate
  return { wallMs: performance.now() - t0, seconds, chunks: gaps.length, gaps }
}

async function abortMs(engine: TtsEngine, voice: string): Promise<number> {
  const controller = new AbortController()
  const it = engine.synthesize({ text: LONG, voice }, { signal: controller.signal })[Symbol.asyncIterator]()
  await it.next()
  const t0 = performance.now()
  controller.abort()
  try {
    while (!(await it.next()).done);
  } catch {
    // the abort error
  }
  return performance.now() - t0
}

async function bench(id: string): Promise<void> {
  const voice = VOICE[id]!
  const t0 = performance.now()
  const engine = await (await loadTtsEngineFactory(id))({})
  const startMs = performance.now() - t0
  await firstChunkMs(engine, voice) // warm-up
  const ttfc: number[] = []
  for (let i = 0; i < 20; i++) ttfc.push(await firstChunkMs(engine, voice))
  const long = await longRun(engine, voice)
  const aborts: number[] = []
  for (let i = 0; i < 5; i++) aborts.push(await abortMs(engine, voice))
  await engine.close()
  const f = (n: number): string => n.toFixed(1)
  console.log(`\n${id} (voice ${voice}, ${engine.sampleRate} Hz, ${engine.capabilities.streaming} streaming)`)
  console.log(`  start-up:            ${f(startMs)} ms`)
  const p = (v: number[]): string => `p50 ${f(percentile(v, 50))} ms, p95 ${f(percentile(v, 95))} ms`
  const rtf = (long.wallMs / 1000 / long.seconds).toFixed(4)
  console.log(`  first chunk (1 sentence, ${SENTENCE.length} chars): ${p(ttfc)}`)
  console.log(`  ${LONG.length} chars → ${long.seconds.toFixed(1)} s audio in ${f(long.wallMs)} ms: RTF ${rtf}`)
  console.log(`  chunks: ${long.chunks}, first after ${f(long.gaps[0]!)} ms; time between chunks ${p(long.gaps.slice(1))}`)
  console.log(`  abort → rejection:   p50 ${f(percentile(aborts, 50))} ms, max ${f(Math.max(...aborts))} ms`)
}

const wanted = process.argv.slice(2)
console.log(`TTS engines benchmark on ${availableParallelism()} cores, Node ${process.version}`)
for (const id of wanted.length ? wanted : ttsEngineIds()) await bench(id)
