import { readFileSync } from 'node:fs'
import { decode, encode } from '@msgpack/msgpack'
import WebSocket from 'ws'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { wer } from '../src/asr/wer.js'
import { concatSamples, float32ToInt16 } from '../src/audio/signal.js'
import { readPcm16Wav } from '../src/audio/wav-header.js'
import { startTestServer, type TestServer } from './helpers/app.js'

/** `/v1/asr/live`: live transcription over MessagePack frames, as `/v1/tts/live` frames speech. */
type Frame = { event: string; [key: string]: unknown }
const SECOND = 'go forward ten meters'
const recording = (name: string): Float32Array => {
  const wav = readPcm16Wav(readFileSync(new URL(`./fixtures/real-speech/${name}`, import.meta.url)))
  if (typeof wav === 'string') throw new Error(wav)
  return wav.samples
}

class Client {
  readonly frames: Frame[] = []
  closed: number | undefined
  #wake: (() => void)[] = []
  readonly ws: WebSocket
  constructor(ws: WebSocket) {
    this.ws = ws
    ws.on('message', (d: Buffer) => {
      this.frames.push(decode(d) as Frame)
      for (const w of this.#wake.splice(0)) w()
    })
    ws.on('close', (code) => {
      this.closed = code
      for (const w of this.#wake.splice(0)) w()
    })
  }
  static async open(url: string, headers: Record<string, string>): Promise<Client> {
    const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/v1/asr/live`, { headers })
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject))
    return new Client(ws)
  }
  send(frame: object): void {
    this.ws.send(encode(frame))
  }
  async waitFor(event: string, from = 0): Promise<Frame> {
    for (;;) {
      const f = this.frames.slice(from).find((x) => x.event === event)
      if (f) return f
      if (this.closed !== undefined) throw new Error(`closed ${this.closed}`)
      await new Promise<void>((resolve) => this.#wake.push(resolve))
    }
  }
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

describe('/v1/asr/live', () => {
  it('start, audio at real-time pace, stop → partials, a final per turn with segments and words, finish', async () => {
    const c = await Client.open(url, s.asAlice)
    c.send({ event: 'start', request: { sample_rate: 16000, language: 'en', silence_ms: 400 } })
    const pcm = float32ToInt16(concatSamples([new Float32Array(8000), recording('goforward.wav'), new Float32Array(16000)]))
    const start = performance.now()
    let partialWhileSending = false
    for (let at = 0, n = 0; at < pcm.length; at += 1600, n++) {
      c.send({ event: 'audio', audio: new Uint8Array(pcm.slice(at, at + 1600).buffer) })
      if (c.frames.some((f) => f.event === 'partial' && f.text !== '')) partialWhileSending = true
      await new Promise((r) => setTimeout(r, Math.max(0, start + (n + 1) * 100 - performance.now())))
    }
    c.send({ event: 'stop' })
    const finish = await c.waitFor('finish')
    expect(finish).toEqual({ event: 'finish', reason: 'stop' })
    expect(partialWhileSending).toBe(true)
    const final = c.frames.find((f) => f.event === 'final')!
    expect(wer(SECOND, String(final.text)).wer).toBeLessThanOrEqual(0.25)
    const segments = final.segments as { start: number; end: number }[]
    expect(segments).toHaveLength(1)
    expect(segments[0]!.start).toBeGreaterThan(0.3)
    expect((final.words as unknown[]).length).toBeGreaterThanOrEqual(3)
    // The socket can start again after finish.
    c.send({ event: 'start', request: { sample_rate: 8000, vad: false } })
    c.send({ event: 'stop' })
    expect(await c.waitFor('finish', c.frames.length)).toEqual({ event: 'finish', reason: 'stop' })
    c.ws.close()
  })

  it('bad frames get finish {reason: "error"} and the socket goes on', async () => {
    const c = await Client.open(url, s.asAlice)
    const errorAfter = async (send: () => void) => {
      const from = c.frames.length
      send()
      return c.waitFor('finish', from)
    }
    expect(await errorAfter(() => c.send({ event: 'audio', audio: new Uint8Array(2) }))).toMatchObject({ reason: 'error', message: expect.stringMatching(/before "start"/) })
    expect(await errorAfter(() => c.ws.send('hello'))).toMatchObject({ reason: 'error', message: expect.stringMatching(/binary/) })
    expect(await errorAfter(() => c.send({ event: 'start', request: { sample_rate: 7000 } }))).toMatchObject({ reason: 'error', message: expect.stringMatching(/8000 to 48000/) })
    expect(await errorAfter(() => c.send({ event: 'transcribe' }))).toMatchObject({ reason: 'error', message: expect.stringMatching(/unknown event/) })
    c.send({ event: 'start', request: { sample_rate: 16000 } })
    expect(await errorAfter(() => c.send({ event: 'audio', audio: new Uint8Array(3) }))).toMatchObject({ reason: 'error', message: expect.stringMatching(/even number of bytes/) })
    c.send({ event: 'start', request: { sample_rate: 16000 } })
    c.send({ event: 'stop' })
    expect(await c.waitFor('finish', c.frames.length)).toEqual({ event: 'finish', reason: 'stop' })
    c.ws.close()
  })
})
