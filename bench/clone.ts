/**
 * `npm run bench:clone`: the cost of voice cloning (inline `references`).
 *
 * 1. Analysis of a 10 s and a 30 s reference (festival slt, 32 kHz), in this process: `analyzeVoice` alone,
 *    and decode + analysis from WAV bytes as `/v1/tts` does it (a fresh reference cache each time).
 * 2. Time to the first audio byte of `POST /v1/tts` (two sentences, MessagePack, mp3) against a real server in
 *    a child process (temp data dir, engines warmed up): without a reference, with a reference never seen
 *    before (decode + analysis in the request), and with a reference seen before (cache hit). Interleaved
 *    rounds; the first request with a reference, which measures the built-in voices once, is reported apart.
 * 3. Real-time factor of adapted synthesis: a ~19 s text with a cached reference (whole response time / audio
 *    duration), next to the same text without a reference.
 *
 * Env: BENCH_RUNS (rounds, default 7).
 */
import { Agent, request } from 'node:http'
import { cpus } from 'node:os'
import { encode } from '@msgpack/msgpack'
import { startBenchServer, type BenchServer } from './server.js'
import { median } from './stats.js'

const RUNS = Number(process.env.BENCH_RUNS ?? 7)
const SHORT = 'Thanks for calling. Your table for two is booked for seven tonight.'

type Ready = Pick<BenchServer, 'url' | 'key'>

const agent = new Agent({ keepAlive: true })

/** ms to the first body byte and to the end, and the body. */
function post(ready: Ready, body: object): Promise<{ firstByte: number; total: number; bytes: Buffer }> {
  const payload = Buffer.from(encode(body))
  return new Promise((resolve, reject) => {
    const t0 = performance.now()
    let firstByte = 0
    const chunks: Buffer[] = []
    const req = request(new URL('/v1/tts', ready.url), {
      method: 'POST',
      agent,
      headers: { authorization: `Bearer ${ready.key}`, 'content-type': 'application/msgpack', 'content-length': payload.length },
    }, (res) => {
      res.on('data', (c: Buffer) => {
        if (!firstByte) firstByte = performance.now() - t0
        chunks.push(c)
      })
      res.on('end', () => {
        if (res.statusCode !== 200) reject(new Error(`HTTP ${res.statusCode}: ${Buffer.concat(chunks).toString()}`))
        else resolve({ firstByte, total: performance.now() - t0, bytes: Buffer.concat(chunks) })
      })
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(payload)
  })
}

const ms = (x: number) => `${x.toFixed(0)} ms`

async function main(): Promise<void> {
  const { analyzeVoice } = await import('../src/voices/analysis.js')
  const { createReferenceProfiles } = await import('../src/voices/reference-profiles.js')
  const { stretchAndShift } = await import('../src/audio/dsp/rubberband.js')
  const { concatSamples } = await import('../src/audio/signal.js')
  const { PASSAGES, speech } = await import('../test/support/voice-speech.js')
  const { wavBytes } = await import('../test/helpers/voice-audio.js')
  console.log(`voice-cloning benchmark: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, Node ${process.version}, ${RUNS} rounds\n`)

  // 1. Analysis.
  const parts = await Promise.all([speech(PASSAGES.a), speech(PASSAGES.b), speech(PASSAGES.c)])
  const rate = parts[0]!.sampleRate
  const clips = [
    { name: '10 s', samples: parts[0]!.samples, text: PASSAGES.a },
    { name: '30 s', samples: concatSamples(parts.map((p) => p.samples)), text: `${PASSAGES.a} ${PASSAGES.b} ${PASSAGES.c}` },
  ]
  await analyzeVoice(clips[0]!.samples, rate, { transcript: clips[0]!.text }) // warm-up (JIT, wasm)
  console.log('| reference | analyzeVoice (wall) | analyzeVoice (CPU) | decode + analysis from WAV (wall) |')
  console.log('|---|---|---|---|')
  for (const clip of clips) {
    const wall: number[] = []
    const cpu: number[] = []
    const full: number[] = []
    const wav = wavBytes(clip.samples, rate)
    for (let i = 0; i < Math.max(3, Math.ceil(RUNS / 2)); i++) {
      const c0 = process.cpuUsage()
      const t0 = performance.now()
      await analyzeVoice(clip.samples, rate, { transcript: clip.text })
      wall.push(performance.now() - t0)
      const c = process.cpuUsage(c0)
      cpu.push((c.user + c.system) / 1000)
      const t1 = performance.now()
      await createReferenceProfiles().analyze([{ audio: wav, text: clip.text }], ['body', 'references'])
      full.push(performance.now() - t1)
    }
    const seconds = (clip.samples.length / rate).toFixed(1)
    console.log(`| ${clip.name} (${seconds} s, ${rate / 1000} kHz) | ${ms(median(wall))} | ${ms(median(cpu))} | ${ms(median(full))} |`)
  }

  // 2. and 3. against a server.
  const ready = await startBenchServer()
  try {
    const reference = async (semitones: number, timeRatio: number) => {
      const shifted = await stretchAndShift(parts[0]!.samples, rate, { pitchScale: 2 ** (semitones / 12), timeRatio })
      return { audio: wavBytes(shifted, rate), text: PASSAGES.a }
    }
    const known = await reference(-4, 1.1)
    const fresh = await Promise.all(Array.from({ length: RUNS }, (_, i) => reference(3 - i * 0.7, 0.9 + i * 0.03)))
    await post(ready, { text: SHORT, format: 'mp3' })
    const cold = await post(ready, { text: SHORT, format: 'mp3', references: [known] })
    console.log(`\nfirst request with a reference (measures the ${5} English built-in voices once per process): ${ms(cold.firstByte)} to the first byte`)

    const none: number[] = []
    const added: number[] = []
    const cached: number[] = []
    for (let i = 0; i < RUNS; i++) {
      none.push((await post(ready, { text: SHORT, format: 'mp3' })).firstByte)
      added.push((await post(ready, { text: SHORT, format: 'mp3', references: [fresh[i]!] })).firstByte)
      cached.push((await post(ready, { text: SHORT, format: 'mp3', references: [known] })).firstByte)
    }
    const base = median(none)
    console.log('\n| time to first audio byte (two sentences, mp3) | median | min | max | vs no reference |')
    console.log('|---|---|---|---|---|')
    for (const [name, xs] of [['no reference', none], ['new reference (~10 s WAV, 32 kHz)', added], ['cached reference', cached]] as const) {
      console.log(`| ${name} | ${ms(median(xs))} | ${ms(Math.min(...xs))} | ${ms(Math.max(...xs))} | ×${(median(xs) / base).toFixed(2)} |`)
    }

    const long = `${PASSAGES.b} ${PASSAGES.c}`
    const rtf = async (references: object[]) => {
      const runs: number[] = []
      for (let i = 0; i < 3; i++) {
        const res = await post(ready, { text: long, format: 'wav', sample_rate: 32000, references })
        const seconds = (res.bytes.length - 44) / 2 / 32000
        runs.push(res.total / 1000 / seconds)
      }
      return median(runs)
    }
    const plain = await rtf([])
    const adapted = await rtf([known])
    console.log(`\nreal-time factor (${long.length} characters, wav 32 kHz, whole response): adapted ${adapted.toFixed(3)}, without a reference ${plain.toFixed(3)}`)
  } finally {
    agent.destroy()
    await ready.stop()
  }
}

await main()
