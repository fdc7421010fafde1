import { readFileSync } from 'node:fs'
import OpenAI, { toFile } from 'openai'
import { OpenAIRealtimeWS } from 'openai/realtime/ws'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { wer } from '../src/asr/wer.js'
import { resampleAll } from '../src/audio/resample.js'
import { concatSamples, float32ToInt16 } from '../src/audio/signal.js'
import { readPcm16Wav } from '../src/audio/wav-header.js'
import { startTestServer, type TestServer } from './helpers/app.js'
import { startNginx, type Nginx } from './helpers/nginx.js'

/**
 * The `openai` npm SDK's realtime client (`OpenAIRealtimeWS`), unmodified. It always connects over `wss`, so
 * the TLS-terminating nginx of docs/deploy.md stands in front, as in a deployment; the client trusts its
 * self-signed certificate through the SDK's own socket options.
 */
const TRUTH = 'and mister john dashwood had then leisure to consider how much there might be prudently in his power to do for them'
let s: TestServer
let nginx: Nginx

beforeAll(async () => {
  s = await startTestServer()
  nginx = await startNginx([await s.listen()], { tls: true })
  await s.deps.asr.warm()
})
afterAll(async () => {
  await nginx?.stop()
  await s.close()
})

describe('openai SDK realtime transcription', () => {
  it('transcribes a real recording streamed at real time: deltas while audio is sent, then completed, as accurate as the file route', async () => {
    const client = new OpenAI({ apiKey: s.alice, baseURL: `${nginx.url}/v1` })
    const rt = new OpenAIRealtimeWS({ model: 'gpt-4o-transcribe', options: { ca: nginx.cert! } }, client)
    const errors: unknown[] = []
    rt.on('error', (err) => errors.push(err))
    await new Promise<void>((resolve, reject) => {
      rt.socket.once('open', () => resolve())
      rt.socket.once('error', reject)
    })
    const created = new Promise((resolve) => rt.on('session.created', resolve))
    await created
    const updated = new Promise((resolve) => rt.on('session.updated', resolve))
    rt.send({
      type: 'session.update',
      session: {
        type: 'transcription',
        audio: { input: { format: { type: 'audio/pcm', rate: 24000 }, transcription: { model: 'gpt-4o-transcribe', language: 'en' }, turn_detection: { type: 'server_vad', silence_duration_ms: 500 } } },
      },
    })
    await updated
    let deltaWhileSending = false
    let sending = true
    rt.on('conversation.item.input_audio_transcription.delta', () => {
      if (sending) deltaWhileSending = true
    })
    const completed = new Promise<{ transcript: string }>((resolve) => rt.on('conversation.item.input_audio_transcription.completed', resolve))
    const file = readFileSync(new URL('./fixtures/real-speech/librivox-0870.wav', import.meta.url))
    const wav = readPcm16Wav(file)
    if (typeof wav === 'string') throw new Error(wav)
    const audio = concatSamples([new Float32Array(8000), wav.samples, new Float32Array(16000)])
    const pcm = Buffer.from(float32ToInt16(resampleAll(audio, 16000, 24000)).buffer)
    const frame = 24000 * 2 * 0.04
    const start = performance.now()
    for (let at = 0, n = 0; at < pcm.length; at += frame, n++) {
      rt.send({ type: 'input_audio_buffer.append', audio: pcm.subarray(at, at + frame).toString('base64') })
      await new Promise((r) => setTimeout(r, Math.max(0, start + (n + 1) * 40 - performance.now())))
    }
    sending = false
    const done = await completed
    expect(deltaWhileSending).toBe(true)
    // The same file through the SDK's transcriptions call: the completed transcript is within 2 points of it.
    const direct = new OpenAI({ apiKey: s.alice, baseURL: `${await s.listen()}/v1` })
    const batch = await direct.audio.transcriptions.create({ model: 'whisper-1', file: await toFile(file, 'speech.wav') })
    expect(wer(TRUTH, done.transcript).wer).toBeLessThanOrEqual(wer(TRUTH, batch.text).wer + 0.02)
    expect(wer(TRUTH, done.transcript).wer).toBeLessThanOrEqual(0.45)
    expect(errors).toEqual([])
    rt.close()
  })
})
