/**
 * `npm run bench:tts`: latency and throughput of `POST /v1/tts` on loopback.
 *
 * A child process runs a real server on 127.0.0.1 (temp data dir, engines warmed up before the first request);
 * this process is the client (node:http, keep-alive), so client and server do not share an event loop. Per
 * engine voice and format: time to first audio byte (p50/p95) for one sentence with `latency: low` and three
 * sentences with `balanced`, alone and under 8 concurrent requests; real-time factor on a ~2,000-character
 * text; and end-to-end time over the engine's own synthesis time for that text (the engine called directly,
 * in this process, while the server is idle).
 *
 * Env: BENCH_RUNS (sequential runs per figure, default 20), BENCH_CONCURRENCY (default 8), BENCH_VOICES
 * (comma list, default festival-slt,flite-rms,espeak-ng-en-us), BENCH_FORMATS (default pcm,wav,mp3,opus).
 * Then the OpenAI and Wyoming surfaces against /v1/tts (bench/protocols.ts); BENCH_ONLY=protocols runs only that.
 */
import { Agent, request } from 'node:http'
import { availableParallelism, cpus, loadavg } from 'node:os'
import { ttsProtocols } from './protocols.js'
import { startBenchServer, type BenchServer } from './server.js'
import { PARAGRAPH_TEXT, SENTENCE, THREE_SENTENCES } from './tts-texts.js'
import { percentile } from './stats.js'

const RUNS = Number(process.env.BENCH_RUNS ?? 20)
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8)
const VOICES = (process.env.BENCH_VOICES ?? 'festival-slt,flite-rms,espeak-ng-en-us').split(',')
const FORMATS = (process.env.BENCH_FORMATS ?? 'pcm,wav,mp3,opus').split(',')
const PROTOCOLS_ONLY = process.env.BENCH_ONLY === 'protocols'

type Ready = Pick<BenchServer, 'url' | 'key'>

interface Timing {
  /** ms from sending the request to the first body byte. */
  readonly firstByte: number
  /** ms from sending the request to the end of the body. */
  readonly total: number
  readonly bytes: number
}

const agent = new Agent({ keepAlive: true, maxSockets: 64 })

function post(ready: Ready, body: object): Promise<Timing> {
  const payload = Buffer.from(JSON.stringify(body))
  const url = new URL('/v1/tts', ready.url)
  return new Promise((resolve, reject) => {
    const t0 = performance.now()
    let firstByte = 0
    let bytes = 0
    const req = request(url, {
      method: 'POST',
      agent,
      headers: { authorization: `Bearer ${ready.key}`, 'content-type': 'application/json', 'content-length': payload.length },
    }, (res) => {
      if (res.statusCode !== 200) {
        res.resume()
        return reject(new Error(`HTTP ${res.statusCode}`))
      }
      res.on('data', (chunk: Buffer) => {
        if (bytes === 0) firstByte = performance.now() - t0
        bytes += chunk.length
      })
      res.on('end', () => resolve({ firstByte, total: performance.now() - t0, bytes }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(payload)
  })
}

const f0 = (n: number) => n.toFixed(0)
const f2 = (n: number) => n.toFixed(2)
const pp = (v: readonly number[]) => `${f0(percentile(v, 50))} / ${f0(percentile(v, 95))}`
const ppm = (v: readonly number[]) => `${pp(v)} (${f0(Math.min(...v))})`

/** `concurrency` clients, each sending requests back to back, until `runs` requests in total were timed. */
async function concurrent(ready: Ready, body: object, runs: number, concurrency: number): Promise<number[]> {
  const out: number[] = []
  let left = Math.max(runs, concurrency * 3)
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (left-- > 0) out.push((await post(ready, body)).firstByte)
  }))
  return out
}

async function main(): Promise<void> {
  const ready = await startBenchServer({}, ['tts'], { wyoming: true })
  const { createEngineSet } = await import('../src/engines/tts/engine-set.js')
  const { planText } = await import('../src/text/index.js')
  const { loadConfig } = await import('../src/config/load.js')
  const engines = createEngineSet({ config: loadConfig({ env: {}, file: undefined, flags: { festivalProcesses: 1 } }) })
  try {
    console.log(`TTS benchmark: ${availableParallelism()} cores (${cpus()[0]?.model ?? '?'}), Node ${process.version}; ` +
      `${RUNS} runs per figure, ${CONCURRENCY} concurrent clients; load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`)
    console.log(`texts: 1 sentence (${SENTENCE.length} chars, latency low); 3 sentences (${THREE_SENTENCES.length} chars, balanced); ` +
      `long (${PARAGRAPH_TEXT.length} chars, balanced)\n`)
    console.log('| voice | format | first byte low p50/p95 (min) ms | first byte balanced p50/p95 (min) ms | ×8: low p50/p95 | ×8: balanced p50/p95 | RTF (long) | end-to-end / engine |')
    console.log('|---|---|---|---|---|---|---|---|')
    for (const voice of PROTOCOLS_ONLY ? [] : VOICES) {
      const engine = await engineFor(engines, voice)
      const spokenLong = spokenText(planText, PARAGRAPH_TEXT, 'balanced')
      // Audio length of the long text as the server renders it (pauses included), from a pcm response.
      const pcm = await post(ready, { reference_id: voice, format: 'pcm', sample_rate: 16000, text: PARAGRAPH_TEXT })
      const audio = pcm.bytes / 2 / 16000
      let engineBest = Infinity
      // Formats take turns within each round, so a change in the machine's load hits them all alike.
      const lowBody = (format: string) => ({ reference_id: voice, format, text: SENTENCE, latency: 'low' })
      const balancedBody = (format: string) => ({ reference_id: voice, format, text: THREE_SENTENCES, latency: 'balanced' })
      const firstBytes = new Map(FORMATS.map((f) => [f, { low: [] as number[], balanced: [] as number[] }]))
      // The engine alone on the same first chunks, in the same rounds: what the first byte cannot beat.
      const lowFirst = firstChunk(planText, SENTENCE, 'low')
      const balancedFirst = firstChunk(planText, THREE_SENTENCES, 'balanced')
      const alone = { low: [] as number[], balanced: [] as number[] }
      for (let round = -1; round < RUNS; round++) {
        const aloneLow = await engineFirst(engine, lowFirst)
        const aloneBalanced = await engineFirst(engine, balancedFirst)
        if (round >= 0) {
          alone.low.push(aloneLow)
          alone.balanced.push(aloneBalanced)
        }
        for (const format of FORMATS) {
          const low = (await post(ready, lowBody(format))).firstByte
          const balanced = (await post(ready, balancedBody(format))).firstByte
          if (round < 0) continue // warm-up
          firstBytes.get(format)!.low.push(low)
          firstBytes.get(format)!.balanced.push(balanced)
        }
      }
      for (const format of FORMATS) {
        const base = { reference_id: voice, format }
        const { low, balanced } = firstBytes.get(format)!
        const lowC = await concurrent(ready, { ...base, text: SENTENCE, latency: 'low' }, RUNS, CONCURRENCY)
        const balancedC = await concurrent(ready, { ...base, text: THREE_SENTENCES, latency: 'balanced' }, RUNS, CONCURRENCY)
        // The long text through the server and through the engine alone, alternately (the machine is shared, so
        // its load drifts); each figure is the best of 3, the least disturbed run.
        let e2e = Infinity
        let alone = Infinity
        for (let i = 0; i < 3; i++) {
          alone = Math.min(alone, (await engineRun(engine, spokenLong)).wallMs / 1000)
          e2e = Math.min(e2e, (await post(ready, { ...base, text: PARAGRAPH_TEXT })).total / 1000)
        }
        engineBest = Math.min(engineBest, alone)
        const row = [ppm(low), ppm(balanced), pp(lowC), pp(balancedC), (e2e / audio).toFixed(3), f2(e2e / alone)]
        console.log(`| ${voice} | ${format} | ${row.join(' | ')} |`)
      }
      const long = await engineRun(engine, spokenLong)
      console.log(`| ${voice} | engine alone | ${ppm(alone.low)} | ${ppm(alone.balanced)} | | | ${(engineBest / long.audioSeconds).toFixed(3)} | ${f0(engineBest * 1000)} ms for ${long.audioSeconds.toFixed(1)} s |`)
    }
    await ttsProtocols(ready, THREE_SENTENCES, RUNS)
    console.log(`\nload average at the end: ${loadavg().map((l) => l.toFixed(1)).join(' ')}`)
  } finally {
    await engines.close()
    agent.destroy()
    await ready.stop()
  }
}

type Engine = import('../src/engines/tts/types.js').TtsEngine
type PlanText = typeof import('../src/text/index.js').planText

/** The engine and engine voice of a built-in voice model id (`festival-slt` → festival, `slt`). */
async function engineFor(engines: { get(id: string): Promise<Engine> }, voiceModelId: string) {
  const engineId = ['espeak-ng', 'festival', 'flite'].find((id) => voiceModelId.startsWith(`${id}-`))!
  const engine = await engines.get(engineId)
  const voice = engine.voices().find((v) => `${engineId}-${v.id}`.toLowerCase() === voiceModelId)!.id
  return { engine, voice }
}

const plan = (planText: PlanText, text: string, latency: 'low' | 'balanced') =>
  planText(text, { dialect: 's2-pro', normalize: true, chunkLength: 200, minChunkLength: 50, latency })
/** The whole text as the server would have it spoken, in one string. */
const spokenText = (planText: PlanText, text: string, latency: 'low' | 'balanced') => plan(planText, text, latency).map((c) => c.spoken).join(' ')
const firstChunk = (planText: PlanText, text: string, latency: 'low' | 'balanced') => plan(planText, text, latency)[0]!.spoken

/**
 * The engine's own time for a text: `synthesize` called directly with what the server would send it, in one
 * call (the engine runs ahead sentence by sentence), consuming nothing but the sample count.
 */
async function engineRun({ engine, voice }: { engine: Engine; voice: string }, text: string) {
  const t0 = performance.now()
  let samples = 0
  for await (const piece of engine.synthesize({ text, voice })) samples += piece.samples.length
  return { wallMs: performance.now() - t0, audioSeconds: samples / engine.sampleRate }
}

/** Time to the engine's first piece for `text`. */
async function engineFirst({ engine, voice }: { engine: Engine; voice: string }, text: string): Promise<number> {
  const t0 = performance.now()
  let first = 0
  // Drained, not broken off: stopping a call early kills the engine's process, and its replacement starting up
  // (festival loads its voice, ~0.5 s of CPU) would overlap the server requests timed next.
  for await (const _ of engine.synthesize({ text, voice })) first ||= performance.now() - t0
  return first
}

await main()
