/**
 * `npm run bench:admission`: admission control under a burst and under a mixed soak, against a real server
 * in a child process (default settings: automatic limits from the cores and the measured engine cost).
 *  1. Burst: BENCH_SOCKETS (default 32) live sockets send a reply each, then all flush at the same instant.
 *  2. Soak: BENCH_STREAMS (default 64) clients for BENCH_SOAK_SEC (default 90 s), mixed: 40 % `/v1/tts`, 20 %
 *     SSE, 30 % live sockets (replies streamed word by word), 10 % `/v1/asr`. A client listens to what it got
 *     (waits for its playback to end), thinks 0.5–2 s, asks again; a turned-away client waits `Retry-After`.
 * Checked per admitted stream: after its first chunk, every chunk arrives before a listener who started playing
 * at the first chunk runs dry ("late" > 0 ms is a stall). Turned-away streams: 503/429 with `Retry-After`,
 * and how fast. No other status. Server RSS sampled each second; its trend over the last third of the soak.
 *     Alongside, BENCH_SHORT (default 8) clients ask `/v1/tts` for one or two words ("Hi.") the same way.
 * Each request's expected work is its characters × 0.06 s of speech per character × the engine cost the server
 * measured (`parla_engine_real_time_factor`, read at the end): refusals of work under 1 s and under the
 * admission wait (0.5 s) are counted with the server's reasons ("short work at its cap": it counted the request as
 * short), and live utterances that ended in an error instead of audio, by their
 * `finish` message (numbers blanked) and whether some of the reply's audio had come before it.
 * Audio is 16-bit pcm at 16 kHz. The default voice (festival slt). `BENCH_ASR=0` replaces the ASR clients by TTS ones.
 * `BENCH_SERVER_ROOT=/other/checkout` runs that checkout's server with these clients (before/after a change).
 */
import { loadavg } from 'node:os'
import { asr, httpTts, LiveSocket, RATE, type Outcome } from './admission-clients.js'
import { processMemory, startBenchServer } from './server.js'
import { percentile } from './stats.js'

const SOCKETS = Number(process.env.BENCH_SOCKETS ?? 32)
const STREAMS = Number(process.env.BENCH_STREAMS ?? 64)
const SOAK_SEC = Number(process.env.BENCH_SOAK_SEC ?? 90)
const SHORT = Number(process.env.BENCH_SHORT ?? 8)
const SHORT_TEXTS = ['Hi.', 'Yes.', 'Okay.', 'Thank you.', 'Sure.', 'Got it.']
/** Seconds of speech per character (the server's `AUDIO_SEC_PER_CHAR`), for each request's expected work. */
const AUDIO_SEC_PER_CHAR = 0.06
/** The server's default `admissionWaitSec`. */
const WAIT_SEC = 0.5
/** Lateness tolerated as "keeping ahead": scheduling jitter of the client's own event loop. */
const JITTER_MS = 50

const REPLIES = [
  'Sure, I can help you with that right away. Let me pull up your account and check the last three orders.',
  'The weather today looks sunny with a light breeze in the afternoon, and it should stay dry until the weekend.',
  'Your package was shipped yesterday and should arrive on Friday. You will get a message when it is out for delivery.',
  'There are three flights to Berlin this evening, all of them on time. The last one leaves at nine fifteen.',
]
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const load = () => loadavg().map((x) => x.toFixed(1)).join(' ')

async function main(): Promise<void> {
  const server = await startBenchServer({}, ['tts', 'asr'])
  const { url, key } = server
  try {
    console.log(`load average before: ${load()}`)
    // Warm-up (JIT, encoders) and the measured cost: a few streams one after another.
    for (const text of REPLIES) await httpTts(url, key, 'tts', text)
    const wav = await speechWav(url, key)

    process.stderr.write(`… burst: ${SOCKETS} sockets flushing at once\n`)
    const sockets = await Promise.all(Array.from({ length: SOCKETS }, () => LiveSocket.open(url, key)))
    const ready = await Promise.all(sockets.map((s, k) => s.prepare(REPLIES[k % REPLIES.length]!, 5)))
    const burst = await Promise.all(ready.map((go) => go()))
    for (const s of sockets) s.close()
    console.log(`load average after the burst: ${load()}`)
    report(`burst: ${SOCKETS} live sockets flushing at once`, burst)

    process.stderr.write(`… soak: ${STREAMS} clients for ${SOAK_SEC} s\n`)
    const rss: { at: number; mb: number }[] = []
    const began = performance.now()
    const sampler = setInterval(() => rss.push({ at: (performance.now() - began) / 1000, mb: processMemory(server.pid).rssMb }), 1000)
    const end = began + SOAK_SEC * 1000
    const soak: Outcome[] = []
    /** Characters each soak request spoke (ASR: none), by outcome. */
    const chars = new Map<Outcome, number>()
    const shortClients = Array.from({ length: SHORT }, async (_, k) => {
      await sleep(Math.random() * 3000)
      for (let round = 0; performance.now() < end; round++) {
        const text = SHORT_TEXTS[(k + round) % SHORT_TEXTS.length]!
        const outcome = { ...await httpTts(url, key, 'tts', text), surface: 'short' }
        soak.push(outcome)
        chars.set(outcome, text.length)
        await sleep(outcome.kind === 'rejected' ? Number(outcome.retryAfter ?? 1) * 1000 : 500 + Math.random() * 1500)
      }
    })
    const longClients = Array.from({ length: STREAMS }, async (_, k) => {
      await sleep(Math.random() * 3000)
      const kind = pick(k)
      const live = kind === 'live' ? await LiveSocket.open(url, key) : undefined
      for (let round = 0; performance.now() < end; round++) {
        const text = REPLIES[(k + round) % REPLIES.length]!
        const asked = performance.now()
        const outcome = live ? await (await live.prepare(text, 10 + Math.random() * 20))()
          : kind === 'asr' ? await asr(url, key, wav)
            : await httpTts(url, key, kind === 'sse' ? 'sse' : 'tts', text)
        soak.push(outcome)
        if (kind !== 'asr') chars.set(outcome, text.length)
        if (outcome.kind === 'rejected') await sleep(Number(outcome.retryAfter ?? 1) * 1000)
        // Listen to the rest of the audio, then think.
        else if (outcome.kind === 'served') await sleep(Math.max(0, outcome.audioSec * 1000 - (performance.now() - asked)) + 500 + Math.random() * 1500)
        else await sleep(1000)
      }
      live?.close()
    })
    await Promise.all([...longClients, ...shortClients])
    clearInterval(sampler)
    console.log(`load average after the soak: ${load()}`)
    report(`soak: ${STREAMS} clients, ${SOAK_SEC} s (${ASR ? '40 % tts, 20 % sse, 30 % live, 10 % asr' : '50 % tts, 20 % sse, 30 % live'})`, soak)
    memoryTrend(rss)
    const metrics = await (await fetch(`${url}/metrics`)).text()
    for (const line of metrics.split('\n')) if (/^parla_(admission_limit|engine_real_time_factor)/.test(line)) console.log(`  ${line}`)
    byWork(soak, chars, metrics)
    if ([...burst, ...soak].some((o) => o.kind === 'failed' || (o.kind === 'served' && o.lateMs > JITTER_MS))) process.exitCode = 1
  } finally {
    await server.stop()
  }
}

/** `BENCH_ASR=0`: the ASR clients speak `/v1/tts` instead (ASR has its own bounded line, `asrQueueLength`, `asrWaitSec`). */
const ASR = process.env.BENCH_ASR !== '0'
const pick = (k: number): 'tts' | 'sse' | 'live' | 'asr' => (['tts', 'tts', 'tts', 'tts', 'sse', 'sse', 'live', 'live', 'live', ASR ? 'asr' : 'tts'] as const)[k % 10]!

/** One sentence of speech as a 16 kHz WAV, for the ASR clients. */
async function speechWav(url: string, key: string): Promise<Uint8Array> {
  const res = await fetch(`${url}/v1/tts`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ text: REPLIES[0], format: 'wav', sample_rate: RATE }) })
  return new Uint8Array(await res.arrayBuffer())
}

function report(title: string, outcomes: Outcome[]): void {
  const served = outcomes.filter((o) => o.kind === 'served')
  const rejected = outcomes.filter((o) => o.kind === 'rejected')
  const failed = outcomes.filter((o) => o.kind === 'failed')
  const streams = served.filter((o) => o.surface !== 'asr')
  const late = streams.filter((o) => o.lateMs > JITTER_MS)
  console.log(`\n${title}`)
  console.log(`  served ${served.length} (${count(served)}), rejected ${rejected.length} (${count(rejected)}), failed ${failed.length} ${failed.length ? JSON.stringify(failed.slice(0, 3)) : ''}`)
  if (streams.length) {
    console.log(`  first audio ms p50 / p95 / max: ${stats(streams.map((o) => o.firstAudioMs))}`)
    console.log(`  fell behind playback after the first chunk (> ${JITTER_MS} ms): ${late.length} of ${streams.length} (${count(late)}); worst lateness ms: ${Math.max(...streams.map((o) => o.lateMs)).toFixed(0)}`)
    console.log(`  audio served: ${streams.reduce((a, o) => a + o.audioSec, 0).toFixed(0)} s`)
  }
  const asrServed = served.filter((o) => o.surface === 'asr')
  if (asrServed.length) console.log(`  asr request ms p50 / p95 / max: ${stats(asrServed.map((o) => o.firstAudioMs))}`)
  if (rejected.length) {
    const withRetry = rejected.filter((o) => o.retryAfter !== undefined).length
    console.log(`  rejections with Retry-After: ${withRetry} of ${rejected.length}; time to rejection ms p50 / p95 / max: ${stats(rejected.map((o) => o.rejectMs))}`)
  }
}

/** Refusals by each request's expected work, and live utterances that failed. */
function byWork(outcomes: Outcome[], chars: Map<Outcome, number>, metrics: string): void {
  const rtfs = [...metrics.matchAll(/^parla_engine_real_time_factor\{[^}]*\} ([\d.e+-]+)$/gm)].map((m) => Number(m[1]))
  const rtf = rtfs.length ? Math.max(...rtfs) : 0.05
  const work = (o: Outcome) => (chars.get(o) ?? Infinity) * AUDIO_SEC_PER_CHAR * rtf
  const speech = outcomes.filter((o) => chars.has(o))
  const under = (sec: number) => speech.filter((o) => work(o) < sec)
  const refused = (list: Outcome[]) => list.filter((o) => o.kind === 'rejected').length
  console.log(`  expected work at cost ${rtf.toFixed(3)}: short texts ${work(speech.find((o) => o.surface === 'short') ?? speech[0]!).toFixed(3)} s and less, replies up to ${Math.max(...speech.map(work)).toFixed(2)} s`)
  console.log(`  refused with under ${WAIT_SEC} s of work: ${refused(under(WAIT_SEC))} of ${under(WAIT_SEC).length}; under 1 s: ${refused(under(1))} of ${under(1).length}`)
  // The server's own expectation at the time: "short work at its cap" means it counted the request as short.
  for (const [why, { n, example }] of reasons(under(WAIT_SEC).filter((o) => o.kind === 'rejected'))) console.log(`    ${n} × ${why}\n      e.g. ${example}`)
  const short = outcomes.filter((o) => o.surface === 'short')
  const shortServed = short.filter((o) => o.kind === 'served')
  if (shortServed.length) console.log(`  short texts: ${refused(short)} refused of ${short.length}; first audio ms p50 / p95 / max: ${stats(shortServed.map((o) => o.firstAudioMs))}`)
  const live = outcomes.filter((o) => o.surface === 'live')
  const liveFailed = live.filter((o) => o.kind !== 'served')
  console.log(`  live utterances failed (finish with an error): ${liveFailed.length} of ${live.length}`)
  for (const [why, { n, example }] of reasons(liveFailed)) console.log(`    ${n} × ${why}\n      e.g. ${example}`)
}

/** Failures by message, numbers blanked out so that the same reason counts once ("5 of 3 streams" → "# of # streams"). */
function reasons(outcomes: Outcome[]): [string, { n: number; example: string }][] {
  const by = new Map<string, { n: number; example: string }>()
  for (const o of outcomes) {
    const detail = o.kind === 'served' ? '' : `${o.kind}, ${o.detail ?? `status ${o.status}`}`
    const why = detail.replace(/\d+(\.\d+)?/g, '#')
    const seen = by.get(why)
    if (seen) seen.n++
    else by.set(why, { n: 1, example: detail })
  }
  return [...by].sort((a, b) => b[1].n - a[1].n)
}

function memoryTrend(rss: { at: number; mb: number }[]): void {
  const last = rss.slice(Math.floor((rss.length * 2) / 3))
  if (last.length < 2) return
  const n = last.length
  const mx = last.reduce((a, p) => a + p.at, 0) / n
  const my = last.reduce((a, p) => a + p.mb, 0) / n
  const slope = last.reduce((a, p) => a + (p.at - mx) * (p.mb - my), 0) / last.reduce((a, p) => a + (p.at - mx) ** 2, 0)
  const mbs = rss.map((p) => p.mb)
  console.log(`  server RSS MB: start ${mbs[0]!.toFixed(0)}, max ${Math.max(...mbs).toFixed(0)}, last third ${last[0]!.mb.toFixed(0)} → ${last.at(-1)!.mb.toFixed(0)} (trend ${(slope * 60).toFixed(1)} MB/min)`)
}

function count(outcomes: Outcome[]): string {
  const by = new Map<string, number>()
  for (const o of outcomes) by.set(o.surface, (by.get(o.surface) ?? 0) + 1)
  return [...by].map(([surface, n]) => `${surface} ${n}`).join(', ')
}

function stats(values: number[]): string {
  return `${percentile(values, 50).toFixed(0)} / ${percentile(values, 95).toFixed(0)} / ${Math.max(...values).toFixed(0)}`
}

await main()
