/**
 * `npm run bench:live`: latency of the real-time surfaces on loopback.
 *
 * The server runs in a child process with the default settings (festival, one process per core); this
 * process is the client. Figures:
 *  1. SSE `/v1/tts/stream/with-timestamp`: time to the first event and to the first non-null alignment.
 *  2. WebSocket `/v1/tts/live`, one socket: time from `flush` to the first audio frame after it. Each round
 *     is a reply streamed word by word (LLM-like pace) with no sentence end before the flush, so nothing is
 *     synthesized before it.
 *  3. The same with 32 sockets at once, as conversations: after each reply a socket waits until its audio
 *     would have finished playing, then for the user's turn (1.5 to 3.5 s), then streams the next reply.
 *     Independent conversations are out of phase, so each socket starts at a random moment of the first
 *     cycle (about 6 s).
 *  4. The worst case: 32 sockets stream a reply each, then all flush at the same instant.
 *  5. Cross-talk: 32 sockets at once, each speaking its own text, compared with every text spoken alone
 *     (see `checkCrossTalk`).
 * Env: BENCH_ROUNDS (single-socket rounds, default 30), BENCH_SOCKETS (default 32), BENCH_SOCKET_ROUNDS
 * (rounds per socket in 3, default 4), BENCH_SSE (SSE requests, default 20), BENCH_FESTIVAL (festival processes,
 * default one per core), BENCH_LATENCY (`latency` of the live requests, default balanced), BENCH_ONLY=clients
 * (only 6, below), BENCH_CLIENTS_AHEAD (ms; adds to 6 LiveKit's sequence with its `start` sent that much ahead).
 *  6. Agent frameworks' frame sequences: flush to first audio for LiveKit's and Pipecat's, the same 48
 *     sentences (see `compareClientSequences`), p50 and p90.
 */
import { cpus, loadavg } from 'node:os'
import { decode, encode } from '@msgpack/msgpack'
import WebSocket from 'ws'
import { compareClientSequences } from './live-clients.js'
import { AGENT_REPLIES } from './live-replies.js'
import { processTreeCpuMs } from './proc-cpu.js'
import { startBenchServer } from './server.js'
import { percentile } from './stats.js'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 30)
const SOCKETS = Number(process.env.BENCH_SOCKETS ?? 32)
const SOCKET_ROUNDS = Number(process.env.BENCH_SOCKET_ROUNDS ?? 4)
const SSE_RUNS = Number(process.env.BENCH_SSE ?? 20)
/** `latency` of the live requests; `normal` turns the first-phrase split off. */
const LATENCY = process.env.BENCH_LATENCY ?? 'balanced'
/** festival processes; 0: the default (one per core). */
const FESTIVAL = Number(process.env.BENCH_FESTIVAL ?? 0)
const CLIENTS_AHEAD_MS = Number(process.env.BENCH_CLIENTS_AHEAD ?? 0)

/** The first twelve agent replies: the single-socket and burst figures were always taken on these twelve. */
const REPLIES = AGENT_REPLIES.slice(0, 12)
const SSE_TEXT = 'Hello there, thanks for calling. Your order has shipped and will arrive on Friday. Is there anything else I can do for you today?'

async function main(): Promise<void> {
  const ready = await startBenchServer(FESTIVAL ? { festivalProcesses: FESTIVAL } : {})
  try {
    const headers = { authorization: `Bearer ${ready.key}` }
    console.log(`load average before: ${loadavg().map((x) => x.toFixed(2)).join(' ')}`)
    // Warm-up: JIT, engine processes, encoders.
    await sse(ready.url, headers)
    const warm = await Socket.open(ready.url, headers)
    await warm.reply(REPLIES[0]!, { format: 'mp3' }, 0)
    warm.close()

    const phase = (name: string) => process.stderr.write(`… ${name}\n`)
    if (process.env.BENCH_ONLY === 'clients') return await clientsPhase(ready.url, ready.key)
    phase('SSE')
    const firstEvent: number[] = []
    const firstAlignment: number[] = []
    for (let i = 0; i < SSE_RUNS; i++) {
      const r = await sse(ready.url, headers)
      firstEvent.push(r.firstEvent)
      firstAlignment.push(r.firstAlignment)
    }

    phase('one socket')
    const single: number[] = []
    const socket = await Socket.open(ready.url, headers)
    for (let i = 0; i < ROUNDS; i++) single.push((await socket.reply(REPLIES[i % REPLIES.length]!, { format: 'mp3', latency: LATENCY }, 15)).flushToAudio)
    socket.close()

    phase(`${SOCKETS} sockets in conversation`)
    const concurrent: number[] = []
    const cpu = processTreeCpuMs(ready.pid) / 1000
    const began = performance.now()
    let audioSec = 0
    await Promise.all(
      Array.from({ length: SOCKETS }, async (_, k) => {
        await sleep(Math.random() * 6000)
        const s = await Socket.open(ready.url, headers)
        for (let i = 0; i < SOCKET_ROUNDS; i++) {
          const r = await s.reply(REPLIES[(k + i) % REPLIES.length]!, { format: 'mp3', latency: LATENCY }, 10 + Math.random() * 20)
          concurrent.push(r.flushToAudio)
          audioSec += r.audioSec
          // Listen to the reply, then to the user, before streaming the next one.
          await sleep(Math.max(0, r.audioSec * 1000 - (performance.now() - r.firstAudioAt)) + 1500 + Math.random() * 2000)
        }
        s.close()
      }),
    )
    const wall = (performance.now() - began) / 1000
    const used = processTreeCpuMs(ready.pid) / 1000 - cpu

    phase(`${SOCKETS} sockets flushing at once`)
    const burst: number[] = []
    const sockets = await Promise.all(Array.from({ length: SOCKETS }, () => Socket.open(ready.url, headers)))
    const prepared = await Promise.all(sockets.map((s, k) => s.prepare(REPLIES[k % REPLIES.length]!, { format: 'mp3', latency: LATENCY }, 10)))
    const results = await Promise.all(prepared.map((go) => go()))
    for (const r of results) burst.push(r.flushToAudio)
    for (const s of sockets) s.close()

    phase('cross-talk')
    const crossTalk = await checkCrossTalk(ready.url, headers)

    console.log(`load average after: ${loadavg().map((x) => x.toFixed(2)).join(' ')}\n`)
    console.log('| measurement | n | p50 ms | p95 ms | max ms |')
    console.log('|---|---|---|---|---|')
    row('SSE: request to first event', firstEvent)
    row('SSE: request to first non-null alignment', firstAlignment)
    row('WS, 1 socket: flush to first audio frame', single)
    row(`WS, ${SOCKETS} sockets in conversation: flush to first audio frame`, concurrent)
    row(`WS, ${SOCKETS} sockets flushing at the same instant`, burst)
    console.log(`\nconversation phase: ${audioSec.toFixed(0)} s of audio in ${wall.toFixed(1)} s; server CPU ${used.toFixed(1)} s (${((100 * used) / wall / cpus().length).toFixed(0)} % of ${cpus().length} cores, festival included)`)
    const { sessions, matched, worstOwn, bestOther } = crossTalk
    console.log(`\ncross-talk: ${matched} of ${sessions} concurrent sessions match their own text's solo rendering best ` +
      `(envelope correlation: own ≥ ${worstOwn.toFixed(3)}, any other ≤ ${bestOther.toFixed(3)})`)
    if (matched !== sessions) process.exitCode = 1
    await clientsPhase(ready.url, ready.key)
  } finally {
    await ready.stop()
  }
}

async function clientsPhase(url: string, key: string): Promise<void> {
  process.stderr.write(`… LiveKit and Pipecat frame sequences, ${AGENT_REPLIES.length} sentences\n`)
  const { livekit, pipecat, livekitAhead } = await compareClientSequences(url, key, AGENT_REPLIES, CLIENTS_AHEAD_MS)
  console.log(`\nload average: ${loadavg().map((x) => x.toFixed(2)).join(' ')}`)
  console.log('| client sequence, 1 socket, same sentences | n | p50 ms | p90 ms | max ms |')
  console.log('|---|---|---|---|---|')
  const line = (name: string, ms: number[]) =>
    console.log(`| ${name} | ${ms.length} | ${percentile(ms, 50).toFixed(0)} | ${percentile(ms, 90).toFixed(0)} | ${Math.max(...ms).toFixed(0)} |`)
  line('LiveKit: start (wav 24 kHz, chunk_length 100), "sentence " + flush + stop', livekit)
  line('Pipecat: "sentence" + flush + flush (pcm 24 kHz)', pipecat)
  if (livekitAhead.length) line(`LiveKit, start sent ${CLIENTS_AHEAD_MS} ms before the text`, livekitAhead)
  const ratio = (p: number) => (percentile(livekit, p) / percentile(pipecat, p)).toFixed(2)
  console.log(`LiveKit / Pipecat: p50 ${ratio(50)}, p90 ${ratio(90)}`)
}

function row(name: string, ms: number[]): void {
  const f = (x: number) => x.toFixed(0)
  console.log(`| ${name} | ${ms.length} | ${f(percentile(ms, 50))} | ${f(percentile(ms, 95))} | ${f(Math.max(...ms))} |`)
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** One SSE request: ms to the first event and to the first event with an alignment. */
async function sse(url: string, headers: Record<string, string>): Promise<{ firstEvent: number; firstAlignment: number }> {
  const t0 = performance.now()
  const res = await fetch(`${url}/v1/tts/stream/with-timestamp`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ text: SSE_TEXT, format: 'mp3', latency: 'balanced' }),
  })
  let firstEvent = NaN
  let firstAlignment = NaN
  let text = ''
  const decoder = new TextDecoder()
  for await (const chunk of res.body!) {
    text += decoder.decode(chunk as Uint8Array, { stream: true })
    let cut: number
    while ((cut = text.indexOf('\n\n')) >= 0) {
      const message = text.slice(0, cut)
      text = text.slice(cut + 2)
      if (!message.startsWith('data: ')) continue
      if (Number.isNaN(firstEvent)) firstEvent = performance.now() - t0
      if (Number.isNaN(firstAlignment) && (JSON.parse(message.slice(6)) as { alignment: unknown }).alignment !== null) {
        firstAlignment = performance.now() - t0
      }
    }
  }
  return { firstEvent, firstAlignment }
}

/** A live socket that speaks replies: start, words, flush, stop; reused across replies. */
class Socket {
  private readonly ws: WebSocket
  private listener: ((frame: { event: string; audio?: Uint8Array; reason?: string }) => void) | undefined

  private constructor(ws: WebSocket) {
    this.ws = ws
    ws.on('message', (data: Buffer) => this.listener?.(decode(data) as never))
  }

  static open(url: string, headers: Record<string, string>): Promise<Socket> {
    const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/v1/tts/live`, { headers })
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(new Socket(ws)))
      ws.once('error', reject)
    })
  }

  /** Streams `text` word by word `gapMs` apart, flushes, stops; resolves at `finish`. */
  async reply(text: string, request: object, gapMs: number) {
    return (await this.prepare(text, request, gapMs))()
  }

  /** Streams `text` word by word; resolves to a function that flushes, stops and waits for `finish`. */
  async prepare(text: string, request: object, gapMs: number) {
    const chunks: Buffer[] = []
    let flushedAt = 0
    let firstAudioAt = 0
    const done = new Promise<void>((resolve, reject) => {
      this.listener = (frame) => {
        if (frame.event === 'audio') {
          if (!flushedAt) return reject(new Error('audio before the flush'))
          firstAudioAt ||= performance.now()
          chunks.push(Buffer.from(frame.audio!))
        } else if (frame.event === 'finish') {
          if (frame.reason === 'stop') resolve()
          else reject(new Error(`finish: ${JSON.stringify(frame)}`))
        }
      }
    })
    this.send({ event: 'start', request: { text: '', ...request } })
    // Tokens as LLMs emit them, the space first: the final "." has nothing after it until the flush.
    for (const [i, word] of text.split(' ').entries()) {
      if (gapMs > 0) await sleep(gapMs)
      this.send({ event: 'text', text: i === 0 ? word : ` ${word}` })
    }
    return async () => {
      flushedAt = performance.now()
      this.send({ event: 'flush' })
      this.send({ event: 'stop' })
      await done
      const audio = Buffer.concat(chunks)
      // mp3 at 128 kb/s: 16,000 bytes a second.
      return { flushToAudio: firstAudioAt - flushedAt, firstAudioAt, audio, audioSec: audio.length / 16000 }
    }
  }

  send(frame: object): void {
    this.ws.send(encode(frame))
  }

  close(): void {
    this.ws.close()
  }
}

/** Raw PCM with every run of 8 or more exact zero samples (the pauses the server inserts by timing) removed. */
function withoutZeroRuns(pcm: Buffer): Buffer {
  const out: Buffer[] = []
  let run = 0
  let start = 0
  for (let i = 0; i + 1 < pcm.length; i += 2) {
    if (pcm.readInt16LE(i) === 0) {
      run++
      continue
    }
    if (run >= 8) {
      out.push(pcm.subarray(start, i - run * 2))
      start = i
    }
    run = 0
  }
  out.push(pcm.subarray(start, pcm.length - (run >= 8 ? run * 2 : 0)))
  return Buffer.concat(out)
}

/** Log energy per 10 ms of 16 kHz s16le PCM. */
function envelope(pcm: Buffer): Float64Array {
  const frame = 160
  const out = new Float64Array(Math.floor(pcm.length / 2 / frame))
  for (let f = 0; f < out.length; f++) {
    let e = 0
    for (let i = 0; i < frame; i++) e += pcm.readInt16LE((f * frame + i) * 2) ** 2
    out[f] = Math.log10(e / frame + 1)
  }
  return out
}

/** Best Pearson correlation of two envelopes over shifts of up to ±50 ms. */
function similarity(a: Float64Array, b: Float64Array): number {
  let best = -1
  for (let lag = -5; lag <= 5; lag++) {
    const n = Math.min(a.length, b.length - lag, a.length + lag, b.length) - Math.abs(lag)
    if (n < 20) continue
    const x = a.subarray(Math.max(0, -lag), Math.max(0, -lag) + n)
    const y = b.subarray(Math.max(0, lag), Math.max(0, lag) + n)
    const mean = (v: Float64Array) => v.reduce((s, t) => s + t, 0) / v.length
    const [mx, my] = [mean(x), mean(y)]
    let sxy = 0
    let sxx = 0
    let syy = 0
    for (let i = 0; i < n; i++) {
      sxy += (x[i]! - mx) * (y[i]! - my)
      sxx += (x[i]! - mx) ** 2
      syy += (y[i]! - my) ** 2
    }
    best = Math.max(best, sxy / Math.sqrt(sxx * syy || 1))
  }
  // A length mismatch beyond festival's run-to-run variation is a different rendering.
  return Math.abs(a.length - b.length) > 10 ? Math.min(best, 0) : best
}

/**
 * Each of `SOCKETS` sessions speaks its own text in the default voice as raw PCM, all at once; each result is
 * compared with every solo rendering by energy envelope (festival's excitation is random, so not byte for
 * byte): its own text must be the clear best match. A misrouted or mixed-in frame would break that.
 */
async function checkCrossTalk(url: string, headers: Record<string, string>) {
  const request = { format: 'pcm', sample_rate: 16000 }
  const texts = Array.from({ length: SOCKETS }, (_, k) => `${REPLIES[k % REPLIES.length]!.slice(0, -1)}, and ${TAILS[k % TAILS.length]!}.`)
  const solo: Float64Array[] = []
  const one = await Socket.open(url, headers)
  for (const text of texts) solo.push(envelope(withoutZeroRuns((await one.reply(text, request, 0)).audio)))
  one.close()
  const together = await Promise.all(
    texts.map(async (text) => {
      const s = await Socket.open(url, headers)
      const r = await s.reply(text, request, 5 + Math.random() * 10)
      s.close()
      return envelope(withoutZeroRuns(r.audio))
    }),
  )
  let matched = 0
  let worstOwn = 1
  let bestOther = -1
  together.forEach((env, k) => {
    const scores = solo.map((ref) => similarity(env, ref))
    const others = Math.max(...scores.filter((_, j) => texts[j] !== texts[k]))
    worstOwn = Math.min(worstOwn, scores[k]!)
    bestOther = Math.max(bestOther, others)
    if (scores[k]! >= 0.9 && scores[k]! > others) matched++
  })
  return { sessions: texts.length, matched, worstOwn, bestOther }
}

/** Endings that make every session's text its own. */
const TAILS = [
  'the blue car', 'a quiet evening', 'my old friend', 'the river bank', 'seven green apples', 'a rainy morning',
  'the tall tower', 'our new neighbour', 'a long journey', 'the red balloon', 'two small dogs', 'a bright lamp',
  'the winter coat', 'a silver spoon', 'the open window', 'a loud trumpet', 'the paper boat', 'a sleepy cat',
  'the golden gate', 'a hidden key', 'the busy market', 'a warm blanket', 'the stone bridge', 'a fresh loaf',
  'the empty room', 'a happy song', 'the wooden chair', 'a tiny mouse', 'the distant hill', 'a cold drink',
  'the broken clock', 'a purple flower',
]

await main()
