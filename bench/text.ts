/**
 * `npm run bench:text`: what the text pipeline costs a request before any audio, per text size and markup:
 * plain prose, prose with expression tags, and the same prose as an SSML document (read by `readSsml`, then
 * planned). Target: a few milliseconds for the longest text a request may carry (`maxTextLength`, 20,000
 * characters), next to the hundreds of milliseconds of the first audio (docs/benchmarks.md).
 * Env: BENCH_RUNS (default 50 per case, after 5 warm-up runs).
 */
import { loadavg } from 'node:os'
import { planText, readSsml, type TextPipelineOptions } from '../src/text/index.js'
import { median, percentile } from './stats.js'
import { PARAGRAPH_TEXT } from './tts-texts.js'

const RUNS = Number(process.env.BENCH_RUNS ?? 50)
const OPTIONS: TextPipelineOptions = { dialect: 's2-pro', normalize: true, chunkLength: 200, minChunkLength: 50, latency: 'balanced' }

/** The paragraph repeated up to `size` characters, its sentences as given by `wrap`. */
function grow(size: number, wrap: (sentence: string, i: number) => string): string {
  const sentences = PARAGRAPH_TEXT.split(/(?<=[.!?])\s+/)
  let out = ''
  for (let i = 0; out.length < size; i++) out += wrap(sentences[i % sentences.length]!, i) + ' '
  return out.trim()
}

const tagged = (s: string, i: number) => (i % 3 === 0 ? `[calm] ${s}` : i % 3 === 1 ? `${s} [pause 300ms]` : s)
const ssmlBody = (s: string, i: number) =>
  i % 3 === 0 ? `<s><prosody rate="slow">${s}</prosody></s>` : i % 3 === 1 ? `<s>${s}</s><break time="300ms"/>` : `<s>${s}</s>`

function time(run: () => void): { median: number; p95: number } {
  for (let i = 0; i < 5; i++) run()
  const ms: number[] = []
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now()
    run()
    ms.push(performance.now() - t0)
  }
  return { median: median(ms), p95: percentile(ms, 95) }
}

console.log(`bench:text — ${RUNS} runs per case, load ${loadavg().map((l) => l.toFixed(2)).join(' ')}`)
for (const size of [200, 2_000, 19_000]) {
  const plain = grow(size, (s) => s)
  const tags = grow(size, tagged)
  const ssml = `<speak>${grow(size - 20, ssmlBody)}</speak>`
  const rows = [
    ['plain', plain.length, time(() => planText(plain, OPTIONS))],
    ['tags', tags.length, time(() => planText(tags, OPTIONS))],
    ['SSML read', ssml.length, time(() => readSsml(ssml))],
    ['SSML read + plan', ssml.length, time(() => planText(readSsml(ssml).text, OPTIONS))],
  ] as const
  for (const [name, chars, t] of rows) {
    console.log(`${String(size).padStart(6)} | ${name.padEnd(16)} ${String(chars).padStart(6)} chars | median ${t.median.toFixed(2)} ms, p95 ${t.p95.toFixed(2)} ms`)
  }
}
console.log(`load after: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`)
