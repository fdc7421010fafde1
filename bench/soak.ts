/**
 * `npm run soak -- --minutes N` (default 60; `--streams M`, default 64): does the server's memory stay flat
 * under sustained mixed load? A real server in a child process (default settings) and M clients, each in a
 * loop: ask, listen to the audio (wait for its playback to end), think 0.5–2 s, ask again; a refused client
 * waits `Retry-After`. The clients, by number: `/v1/tts` in mp3, wav and opus, SSE, two live-socket
 * conversations, a `/v1/tts` cancelled after its first chunk, `/v1/asr`.
 * Each answer is compared with the answers the same request got alone before the soak (blanking only an Ogg
 * stream's random serial): a difference is audio mixed between streams, or cut short. An HTTP request at the
 * default latency (`balanced`) is phrased as at `low` when its engine is busy (a shorter first phrase), so both
 * renderings are references. Errors are every answer
 * other than audio, a transcript, a cancellation, or a refusal (503/429) with `Retry-After`.
 * Each minute: the server's RSS, heap used, external and array-buffer memory (its own `process.memoryUsage()`),
 * and the answers so far. Verdict: RSS at the end at most 5 % above minute 5 (minute 1 in runs under 6 minutes),
 * no mismatch, no error. Then 10 s idle and RSS again.
 *
 * `--heap-diff A,B` (e.g. `1,3`; 0 ≤ A < B < N): what is retained. The server writes a V8 heap snapshot at
 * minute A and at minute B (into a temp dir, removed at the end), and after the soak the two are compared per
 * constructor or type: objects and self size at A and at B, the top 20 by growth and the totals
 * (`heap-diff.ts`). `--heap-dir DIR` keeps the snapshots in DIR instead, to find in Chrome DevTools (Memory,
 * Load, Comparison) what retains a grower. Writing a snapshot stops the server for seconds and costs it memory
 * (RSS stays about 150–200 MB higher after the first), so with it RSS is printed but not judged; take RSS
 * figures from a run without it.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { diffHeapSnapshots, formatHeapDiff } from './heap-diff.js'
import { asr, LiveClient, RATE, sse, tts, type Answer } from './soak-clients.js'
import { startBenchServer } from './server.js'

const { values: args } = parseArgs({ options: {
  minutes: { type: 'string', default: '60' }, streams: { type: 'string', default: '64' }, 'heap-diff': { type: 'string' },
  'heap-dir': { type: 'string' },
} })
const MINUTES = Number(args.minutes)
const STREAMS = Number(args.streams)
const HEAP_DIFF = args['heap-diff'] === undefined ? undefined : snapshotMinutes(args['heap-diff'])
const TEXTS = [
  'Sure, I can help you with that right away. Let me pull up your account and check the last three orders.',
  'The weather today looks sunny with a light breeze in the afternoon, and it should stay dry until the weekend.',
  'Your package was shipped yesterday and should arrive on Friday.',
  'There are three flights to Berlin this evening, all of them on time.',
]
/** The live clients' texts: one sentence each (one unit, see `LiveClient`). */
const SENTENCES = TEXTS.map((t) => t.split(/(?<=\.) /)[0]!)
const KINDS = ['mp3', 'wav', 'opus', 'sse', 'live', 'live', 'cancel', 'asr'] as const
type Kind = (typeof KINDS)[number]
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(0)
const load = () => loadavg().map((x) => x.toFixed(1)).join(' ')

interface Tally { answers: number; refused: number; refusedNoRetry: number; errors: string[]; mismatches: string[] }

async function main(): Promise<void> {
  const server = await startBenchServer({}, ['tts', 'asr'])
  const { url, key } = server
  const tally: Tally = { answers: 0, refused: 0, refusedNoRetry: 0, errors: [], mismatches: [] }
  const keep = args['heap-dir']
  const snapshotDir = HEAP_DIFF && (keep ? await mkdir(keep, { recursive: true }).then(() => keep) : await mkdtemp(join(tmpdir(), 'parla-soak-heap-')))
  const snapshotAt = (n: number) => join(snapshotDir as string, `minute-${n}.heapsnapshot`)
  const snapshots: Promise<void>[] = []
  try {
    console.log(`soak: ${STREAMS} clients for ${MINUTES} min (${KINDS.join(', ')}); load average before: ${load()}`)
    // References, one request at a time; the seconds of audio of each text, to listen for as long.
    const reference = new Map<string, Set<string>>()
    const refer = (key: string, answer: Answer) => reference.set(key, (reference.get(key) ?? new Set()).add(digestOf(answer)))
    const seconds = new Map<string, number>()
    for (const text of TEXTS) {
      for (const format of ['mp3', 'wav', 'opus']) {
        refer(`${format}:${text}`, await tts(url, key, text, format))
        refer(`${format}:${text}`, await tts(url, key, text, format, false, { latency: 'low' }))
      }
      const pcm = await sse(url, key, text)
      refer(`sse:${text}`, pcm)
      refer(`sse:${text}`, await sse(url, key, text, { latency: 'low' }))
      seconds.set(text, pcm.kind === 'audio' ? pcm.bytes / (RATE * 2) : 0)
    }
    const live = await LiveClient.open(url, key)
    for (const text of SENTENCES) {
      const answer = await live.say(text)
      refer(`live:${text}`, answer)
      seconds.set(text, answer.kind === 'audio' ? answer.bytes / (RATE * 2) : 0)
    }
    live.close()
    const wavAnswer = await fetch(`${url}/v1/tts`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ text: TEXTS[0], format: 'wav', sample_rate: RATE }) })
    const wav = new Uint8Array(await wavAnswer.arrayBuffer())

    const began = performance.now()
    const end = began + MINUTES * 60_000
    const rss: number[] = []
    const minute = async (n: number | 'end') => {
      const m = await server.memory()
      rss[n === 'end' ? rss.length : n] = m.rss
      const t = tally
      console.log(`min ${String(n).padStart(3)}  rss ${mb(m.rss)} MB  heap used ${mb(m.heapUsed)} MB  external ${mb(m.external)} MB  array buffers ${mb(m.arrayBuffers)} MB  answers ${t.answers}, refused ${t.refused}, errors ${t.errors.length}, mismatches ${t.mismatches.length}  load ${load()}`)
      if (typeof n === 'number' && HEAP_DIFF?.includes(n)) snapshots.push(snapshot(n))
    }
    const snapshot = async (n: number) => {
      const started = performance.now()
      await server.heapSnapshot(snapshotAt(n))
      console.log(`min ${String(n).padStart(3)}  heap snapshot written in ${((performance.now() - started) / 1000).toFixed(1)} s`)
    }
    await minute(0)
    let n = 0
    const timer = setInterval(() => void minute(++n), 60_000)
    await Promise.all(Array.from({ length: STREAMS }, (_, k) => client(KINDS[k % KINDS.length]!, k)))
    clearInterval(timer)
    await minute('end')

    async function client(kind: Kind, k: number): Promise<void> {
      await sleep(Math.random() * 5000)
      const socket = kind === 'live' ? await LiveClient.open(url, key) : undefined
      for (let round = 0; performance.now() < end; round++) {
        const texts = kind === 'live' ? SENTENCES : TEXTS
        const text = texts[(k + round) % texts.length]!
        const asked = performance.now()
        const answer = kind === 'asr' ? await asr(url, key, wav)
          : kind === 'sse' ? await sse(url, key, text)
            : kind === 'live' ? await socket!.say(text)
              : await tts(url, key, text, kind === 'cancel' ? 'mp3' : kind, kind === 'cancel')
        tally.answers++
        if (answer.kind === 'refused') {
          tally.refused++
          if (answer.retryAfter === undefined) tally.refusedNoRetry++
          await sleep(Number(answer.retryAfter ?? 1) * 1000)
          continue
        }
        if (answer.kind === 'error') tally.errors.push(`${kind}: ${answer.detail}`)
        if (answer.kind === 'text' && !/\w/.test(answer.text)) tally.errors.push('asr: empty transcript')
        if (answer.kind === 'audio' && !reference.get(`${kind}:${text}`)?.has(answer.digest)) tally.mismatches.push(`${kind}: "${text.slice(0, 30)}…" (${answer.bytes} bytes)`)
        const listen = answer.kind === 'audio' ? (seconds.get(text) ?? 0) * 1000 - (performance.now() - asked) : 0
        await sleep(Math.max(0, listen) + 500 + Math.random() * 1500)
      }
      socket?.close()
    }

    await sleep(10_000)
    const idle = await server.memory()
    if (HEAP_DIFF) {
      await Promise.all(snapshots)
      const [a, b] = HEAP_DIFF
      const diff = diffHeapSnapshots(snapshotAt(a), snapshotAt(b))
      console.log(`\nheap, minute ${a} → minute ${b}: objects and self size per constructor or type, top 20 by growth`)
      console.log(formatHeapDiff(diff, [`min ${a}`, `min ${b}`]))
    }
    verdict(rss, idle.rss, tally)
  } finally {
    await server.stop()
    if (snapshotDir && !keep) await rm(snapshotDir, { recursive: true, force: true })
  }
}

/** `A,B` of `--heap-diff`: two minutes while the load runs (the clients stop at minute N). */
function snapshotMinutes(value: string): [number, number] {
  const [a, b, ...rest] = value.split(',').map(Number)
  if (rest.length > 0 || !Number.isInteger(a) || !Number.isInteger(b) || a! < 0 || a! >= b! || b! >= MINUTES) {
    throw new Error(`--heap-diff ${value}: give two minutes A,B with 0 ≤ A < B < ${MINUTES} (--minutes), e.g. 1,3`)
  }
  return [a!, b!]
}

function digestOf(answer: Answer): string {
  if (answer.kind !== 'audio') throw new Error(`reference request failed: ${JSON.stringify(answer)}`)
  return answer.digest
}

function verdict(rss: number[], idleRss: number, tally: Tally): void {
  const last = rss.at(-1)!
  const base = rss.length > 7 ? 5 : 1
  const change = (last - rss[base]!) / rss[base]!
  console.log(`\nRSS: minute ${base} ${mb(rss[base]!)} MB, end ${mb(last)} MB (${(change * 100).toFixed(1)} %), max ${mb(Math.max(...rss))} MB, after 10 s idle ${mb(idleRss)} MB`)
  console.log(`answers ${tally.answers}; refused ${tally.refused} (${tally.refusedNoRetry} without Retry-After); errors ${tally.errors.length}; mismatched audio ${tally.mismatches.length}`)
  for (const line of [...tally.errors, ...tally.mismatches].slice(0, 10)) console.log(`  ${line}`)
  // Memory given back (a smaller end) is not growth. The heap snapshots' own memory would read as growth.
  const flat = change <= 0.05
  const ok = (flat || HEAP_DIFF !== undefined) && tally.errors.length === 0 && tally.mismatches.length === 0 && tally.refusedNoRetry === 0
  const rssVerdict = HEAP_DIFF ? 'RSS not judged: the heap snapshots cost the server memory'
    : `RSS ${flat ? 'at most' : 'more than'} 5 % above minute ${base}${base === 5 ? '' : ', a run under 6 minutes compares with minute 1'}`
  console.log(`verdict: ${ok ? 'PASS' : 'FAIL'} (${rssVerdict})`)
  if (!ok) process.exitCode = 1
}

await main()
