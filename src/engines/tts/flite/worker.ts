import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import v8 from 'node:v8'
import vm from 'node:vm'
import { parentPort, workerData } from 'node:worker_threads'
import type { FliteJob, FliteReply } from './protocol.js'
import { runFlite } from './run.js'

// node:wasi warns that it is experimental on load; the warning means nothing to a server operator.
process.removeAllListeners('warning')
const { WASI } = await import('node:wasi')
const module = (workerData as { module: WebAssembly.Module }).module
const port = parentPort!

function synth(job: FliteJob): FliteReply {
  const padded = ` ${job.text} `
  const wordsOut = runFlite(WASI, module, ['-pw', '-voice', 'kal', '-t', padded, '-o', 'none'], job.dir, 'words')
  // Punctuation-only "words" (a lone `.`) have no phones; keep only real words.
  const words = wordsOut.trim().split(/\s+/).filter((w) => /[a-z0-9]/i.test(w))
  // The kal front end is the same as the other voices' (cmulex) and the cheapest to run.
  const groups = words.length
    ? runFlite(WASI, module, ['-ps', '-voice', 'kal', '-t', ` ${words.join(', ')} `, '-o', 'none'], job.dir, 'groups')
    : ''
  const settings = ['--setf', `duration_stretch=${job.durationStretch.toFixed(4)}`]
  if (job.f0Mean !== undefined) settings.push('--setf', `int_f0_target_mean=${job.f0Mean.toFixed(2)}`)
  const synthArgs = ['-psdur', '-voice', job.voice, ...settings, '-t', padded, 'out.wav']
  const trace = runFlite(WASI, module, synthArgs, job.dir, 'synth')
  const wav = new Uint8Array(readFileSync(join(job.dir, 'out.wav')))
  return { type: 'result', id: job.id, wav, trace, words, groups }
}

// Every sentence leaves a dead wasm instance with its own linear memory. Left to the collector's own pace they
// pile up, and under ~30 concurrent requests the process died (SIGSEGV inside V8) within seconds; collecting
// after each job keeps one live instance per worker (1,000+ requests in 90 s ran clean;
// test/tts-load.test.ts repeats that load).
v8.setFlagsFromString('--expose-gc')
const gc = vm.runInNewContext('gc') as () => void

port.on('message', (job: FliteJob) => {
  let reply: FliteReply
  try {
    reply = synth(job)
  } catch (err) {
    reply = { type: 'error', id: job.id, message: err instanceof Error ? err.message : String(err) }
  }
  port.postMessage(reply, reply.type === 'result' ? [reply.wav.buffer as ArrayBuffer] : [])
  gc()
})

// The first run of a voice is slow while V8 optimizes the wasm; pay that before taking requests.
const warmDir = mkdtempSync(join(tmpdir(), `parla-flite-${process.pid}-`))
try {
  runFlite(WASI, module, ['-voice', 'slt', '-t', ' Ready. ', '-o', 'none'], warmDir, 'warmup')
} finally {
  rmSync(warmDir, { recursive: true, force: true })
}
port.postMessage({ type: 'ready' } satisfies FliteReply)
