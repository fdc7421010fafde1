import init from '@echogarden/espeak-ng-emscripten'
import { parentPort } from 'node:worker_threads'
import type { EspeakEventInfo, EspeakJob, EspeakReply, EspeakVoiceInfo } from './protocol.js'

const port = parentPort!
const espeak = new (await init()).eSpeakNGWorker()
let currentVoice = ''

function send(reply: EspeakReply, transfer: ArrayBuffer[] = []): void {
  port.postMessage(reply, transfer)
}

function synth(job: EspeakJob): void {
  if (job.identifier !== currentVoice) {
    if (espeak.set_voice(job.identifier) !== 0) throw new Error(`voice ${job.identifier} did not load`)
    currentVoice = job.identifier
  }
  espeak.set_rate(job.wordsPerMinute)
  espeak.set_pitch(job.pitch)
  let stopped = false
  espeak.synthesize(job.text, (samples, events) => {
    if (Atomics.load(job.stop, 0) !== 0) {
      stopped = true
      return true
    }
    const kept: EspeakEventInfo[] = []
    for (const e of events) {
      if (e.type === 'word' || e.type === 'end' || e.type === 'sentence') {
        const { type, text_position, word_length, audio_position } = e
        kept.push({ type, text_position, word_length, audio_position })
      }
    }
    send({ type: 'chunk', id: job.id, samples, events: kept }, [samples.buffer as ArrayBuffer])
    return false
  })
  send({ type: 'done', id: job.id, stopped })
}

port.on('message', (job: EspeakJob) => {
  try {
    synth(job)
  } catch (err) {
    currentVoice = ''
    send({ type: 'error', id: job.id, message: err instanceof Error ? err.message : String(err) })
  }
})

// This build is JavaScript (wasm2js): the first syntheses run slowly until V8 has optimized the hot
// functions. Pay for that before taking requests.
const WARM_UP =
  'The quick brown fox jumps over the lazy dog, near the river bank. Officials said the bridge will reopen ' +
  'to traffic early next month; 25 people, 3 cars and 1,000 bikes crossed it on Tuesday.'
for (let i = 0; i < 2; i++) espeak.synthesize(WARM_UP, () => false)

const voices: EspeakVoiceInfo[] = espeak.list_voices().map((v, i) => ({
  name: v.name.trim(),
  identifier: v.identifier,
  languages: v.languages.map((l) => l.name.toLowerCase()),
  gender: espeak.get_voices(i).get_gender(),
}))
send({ type: 'ready', voices, sampleRate: espeak.samplerate })
