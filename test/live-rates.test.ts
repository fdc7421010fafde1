import { readFileSync } from 'node:fs'
import { decode, encode } from '@msgpack/msgpack'
import WebSocket from 'ws'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { wer } from '../src/asr/wer.js'
import { resampleAll } from '../src/audio/resample.js'
import { concatSamples, float32ToInt16 } from '../src/audio/signal.js'
import { readPcm16Wav } from '../src/audio/wav-header.js'
import { startTestServer, type TestServer } from './helpers/app.js'
import { RealtimeClient } from './helpers/realtime-client.js'

/**
 * The live path hears the same words whatever rate the client declares: one real recording, resampled to each
 * rate a client may send, through `/v1/realtime` (client commits) and `/v1/asr/live` (server VAD), in 20 ms
 * frames as a browser or an agent sends them.
 */
const RATES = [16_000, 24_000, 44_100, 48_000]
const TRUTH = 'and mister john dashwood had then leisure to consider how much there might be prudently in his power to do for them'
const wav = readPcm16Wav(readFileSync(new URL('./fixtures/real-speech/librivox-0870.wav', import.meta.url)))
if (typeof wav === 'string') throw new Error(wav)
const speech = concatSamples([new Float32Array(8000), wav.samples, new Float32Array(16_000)])
const pcmAt = (rate: number) => Buffer.from(float32ToInt16(resampleAll(speech, 16_000, rate)).buffer)
const frames = function* (pcm: Buffer, rate: number) {
  const bytes = Math.round(rate * 0.02) * 2
  for (let at = 0; at < pcm.length; at += bytes) yield pcm.subarray(at, at + bytes)
}

let s: TestServer
let url: string
beforeAll(async () => {
  s = await startTestServer()
  url = await s.listen()
  await s.deps.asr.warm()
})
afterAll(async () => {
  await s.close()
})

async function viaRealtime(rate: number): Promise<string> {
  const c = await RealtimeClient.connect(url, s.asAlice)
  c.send({ type: 'session.update', session: { type: 'transcription', audio: { input: { format: { type: 'audio/pcm', rate }, turn_detection: null, transcription: { language: 'en' } } } } })
  await c.waitFor((e) => e.type === 'session.updated')
  for (const f of frames(pcmAt(rate), rate)) c.send({ type: 'input_audio_buffer.append', audio: f.toString('base64') })
  c.send({ type: 'input_audio_buffer.commit' })
  const done = await c.waitFor((e) => e.type === 'conversation.item.input_audio_transcription.completed')
  c.ws.close()
  return done.transcript as string
}

async function viaFishLive(rate: number): Promise<string> {
  const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/v1/asr/live`, { headers: s.asAlice })
  const got: { event: string; text?: string }[] = []
  const finished = new Promise<void>((resolve, reject) => {
    ws.on('message', (d: Buffer) => {
      const f = decode(d) as { event: string; text?: string }
      got.push(f)
      if (f.event === 'finish') resolve()
    })
    ws.on('close', () => reject(new Error('closed before finish')))
  })
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject))
  ws.send(encode({ event: 'start', request: { sample_rate: rate, language: 'en' } }))
  for (const f of frames(pcmAt(rate), rate)) ws.send(encode({ event: 'audio', audio: new Uint8Array(f) }))
  ws.send(encode({ event: 'stop' }))
  await finished
  ws.close()
  return got.filter((f) => f.event === 'final').map((f) => f.text).join(' ')
}

describe('live recognition at every input rate', () => {
  for (const [surface, run] of [['/v1/realtime', viaRealtime], ['/v1/asr/live', viaFishLive]] as const) {
    it(`${surface}: the same words at 16, 24, 44.1 and 48 kHz`, async () => {
      const heard: string[] = []
      for (const rate of RATES) heard.push(await run(rate))
      const errors = heard.map((text) => wer(TRUTH, text).wer)
      const report = RATES.map((rate, i) => `${rate} Hz (WER ${errors[i]!.toFixed(2)}): "${heard[i]}"`).join('\n')
      // Resampled copies of one recording differ by roundings, and pocketsphinx's first second (its channel
      // estimate) makes that a word or two; garbage (the fault this guards against) is most of the words wrong.
      for (const e of errors) expect(e, report).toBeLessThanOrEqual(Math.min(0.6, errors[0]! + 0.15))
    })
  }
})
