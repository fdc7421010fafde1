import { readFileSync } from 'node:fs'
import WebSocket from 'ws'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { wer } from '../src/asr/wer.js'
import { resampleAll } from '../src/audio/resample.js'
import { concatSamples, float32ToInt16 } from '../src/audio/signal.js'
import { readPcm16Wav } from '../src/audio/wav-header.js'
import { startTestServer, type TestServer } from './helpers/app.js'
import {
  append, COMMIT, FRAME_BYTES, FRAME_MS, frames, HEADERS, MODEL, query, REALTIME_ONLY_MODEL, SAMPLE_RATE, sessionUpdate, VAD_SILENCE_MS,
} from './support/livekit-openai-stt.js'

/**
 * A replay of LiveKit's OpenAI STT plugin against a real Parla server. The plugin needs livekit-agents and
 * the openai Python SDK, which Debian does not package, so its conversation is replayed as
 * test/support/livekit-openai-stt.ts records it from the plugin's code: real recordings streamed at real time
 * in its 50 ms frames, and every server event the plugin reads checked for the fields and types it reads.
 */
const FIXTURES = new URL('./fixtures/real-speech/', import.meta.url)
const LIBRIVOX = { file: 'librivox-0870.wav', truth: 'and mister john dashwood had then leisure to consider how much there might be prudently in his power to do for them', maxWer: 0.45 }
const GO = { file: 'goforward.wav', truth: 'go forward ten meters', maxWer: 0.25 }
const LEAD_SEC = 0.5
/** The microphone's silence after the speaker; 13 ms over whole frames, so the stream ends with a flushed remainder. */
const TAIL_SEC = 1.513
const COMPLETED = 'conversation.item.input_audio_transcription.completed'
const DELTA = 'conversation.item.input_audio_transcription.delta'

interface Received {
  readonly event: Record<string, unknown>
  readonly binary: boolean
  /** Audio frames sent before it arrived. */
  readonly framesSent: number
}

const recording = (name: string): Float32Array => {
  const wav = readPcm16Wav(readFileSync(new URL(name, FIXTURES)))
  if (typeof wav === 'string') throw new Error(wav)
  return wav.samples
}
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** The plugin's side of one socket: what it sends, at its pace, and every frame the server sends back. */
class PluginSocket {
  readonly ws: WebSocket
  readonly received: Received[] = []
  framesSent = 0
  /** Audio sent so far, ms: the clock of the server's audio_start_ms / audio_end_ms. */
  sentMs = 0
  closedByServer: number | undefined
  #wake = () => {}

  private constructor(ws: WebSocket) {
    this.ws = ws
    ws.on('message', (data: Buffer, binary) => {
      this.received.push({ event: binary ? {} : JSON.parse(String(data)) as Record<string, unknown>, binary, framesSent: this.framesSent })
      this.#wake()
    })
    ws.on('close', (code) => {
      this.closedByServer = code
      this.#wake()
    })
  }

  static async connect(url: string, model: string, auth: Record<string, string>): Promise<PluginSocket> {
    // aiohttp's ws_connect: no permessage-deflate offered, no subprotocol, no Origin.
    const ws = new WebSocket(`${url}/v1/realtime${query(model)}`, { headers: { ...HEADERS, ...auth }, perMessageDeflate: false })
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject))
    return new PluginSocket(ws)
  }

  /**
   * One speech stream's audio at real time: a pause, the recording, the microphone's silence, each 50 ms
   * frame when its time comes; `also.send` goes out once the stream's audio has reached `also.ms`. Returns
   * the stream's start and its speaker's end (ms on the socket's clock) and the frame count at the speaker's end.
   */
  async stream(name: string, also?: { ms: number; send: string }) {
    const speech = recording(name)
    const samples = concatSamples([new Float32Array(LEAD_SEC * 16000), speech, new Float32Array(Math.round(TAIL_SEC * 16000))])
    const pieces = frames(new Uint8Array(float32ToInt16(resampleAll(samples, 16000, SAMPLE_RATE)).buffer))
    expect(pieces.at(-1)!.length).toBeLessThan(FRAME_BYTES)
    const speechMs = (LEAD_SEC + speech.length / 16000) * 1000
    const at = { startMs: this.sentMs, speechEndMs: this.sentMs + speechMs, speechEndFrame: this.framesSent + Math.ceil(speechMs / FRAME_MS) }
    let pending = also
    const start = performance.now()
    for (const [n, piece] of pieces.entries()) {
      this.ws.send(append(piece))
      this.framesSent++
      this.sentMs += (piece.length / 2 / SAMPLE_RATE) * 1000
      if (pending && this.sentMs - at.startMs >= pending.ms) {
        this.ws.send(pending.send)
        pending = undefined
      }
      await sleep(Math.max(0, start + (n + 1) * FRAME_MS - performance.now()))
    }
    return at
  }

  /** Waits until `done` holds for the events received since `from`; fails if the server closes the socket. */
  async until(from: number, done: (events: Record<string, unknown>[]) => boolean): Promise<void> {
    for (;;) {
      if (done(this.received.slice(from).map((r) => r.event))) return
      if (this.closedByServer !== undefined) throw new Error(`the server closed the socket (${this.closedByServer})`)
      await new Promise<void>((resolve) => (this.#wake = resolve))
    }
  }

  /** What the plugin's recv_task would not survive: binary frames are skipped, an error event ends it. */
  expectNothingFatal(): void {
    expect(this.closedByServer).toBeUndefined()
    expect(this.received.every((r) => !r.binary && typeof r.event.type === 'string')).toBe(true)
    expect(this.received.filter((r) => r.event.type === 'error').map((r) => r.event)).toEqual([])
  }
}

/** `completed` as recv_task reads it: transcript, item_id, optional languages [{code}], optional usage object. */
function expectCompletedAsRead(completed: Record<string, unknown>): void {
  expect(typeof completed.transcript).toBe('string')
  expect(typeof completed.item_id === 'string' && completed.item_id !== '').toBe(true)
  const { languages, usage } = completed
  if (languages !== undefined && languages !== null) {
    expect(Array.isArray(languages) && languages.every((l) => isObject(l) && typeof l.code === 'string')).toBe(true)
  }
  if (usage !== undefined) {
    expect(isObject(usage)).toBe(true)
    for (const key of ['input_tokens', 'output_tokens']) {
      if (isObject(usage) && usage[key] !== undefined) expect(typeof usage[key]).toBe('number')
    }
  }
}

/** The deltas of `item` as the plugin joins them into its interim text (as they are, spaces included). */
function interimText(events: Record<string, unknown>[], item: unknown): string {
  const deltas = events.filter((e) => e.type === DELTA && e.item_id === item)
  for (const d of deltas) expect(typeof d.delta).toBe('string')
  const text = deltas.map((d) => d.delta).join('')
  expect(text).toBe(text.trim())
  expect(text).not.toContain('  ')
  return text
}

let s: TestServer
let url: string
beforeAll(async () => {
  s = await startTestServer()
  url = (await s.listen()).replace(/^http/, 'ws')
  await s.deps.asr.warm()
})
afterAll(async () => {
  await s.close()
})

describe('LiveKit OpenAI STT plugin (replayed)', { timeout: 120_000 }, () => {
  it(`${MODEL}, server VAD: interim and final transcripts with every field it reads, two speech streams on one pooled socket`, async () => {
    const p = await PluginSocket.connect(url, MODEL, s.asAlice)
    const itemIds = new Set<string>()
    let lastEndMs = -1
    let firstSpeechEndFrame = 0
    for (const stream of [LIBRIVOX, GO]) {
      const from = p.received.length
      // The config goes out as soon as a stream has the socket, on the fresh one and on the reused one alike.
      p.ws.send(sessionUpdate(MODEL))
      const at = await p.stream(stream.file)
      firstSpeechEndFrame ||= at.speechEndFrame
      // The stream's turns are over when one stopped in the speaker's last half second and each is answered.
      await p.until(from, (events) => {
        const started = events.filter((e) => e.type === 'input_audio_buffer.speech_started').length
        const answered = events.filter((e) => e.type === COMPLETED || e.type === 'conversation.item.input_audio_transcription.failed').length
        return answered >= started && events.some((e) => e.type === 'input_audio_buffer.speech_stopped' && (e.audio_end_ms as number) >= at.speechEndMs - 500)
      })
      const events = p.received.slice(from).map((r) => r.event)
      const transcripts: string[] = []
      for (const started of events.filter((e) => e.type === 'input_audio_buffer.speech_started')) {
        const item = started.item_id
        expect(typeof item === 'string' && item !== '', `item_id ${String(item)}`).toBe(true)
        // The plugin keys each item's timing by its id: ids are unique on the socket, across session updates.
        expect(itemIds.has(item as string)).toBe(false)
        itemIds.add(item as string)
        const stopped = events.find((e) => e.type === 'input_audio_buffer.speech_stopped' && e.item_id === item)
        expect(stopped, `speech_stopped for ${String(item)}`).toBeDefined()
        const [startMs, endMs] = [started.audio_start_ms, stopped!.audio_end_ms]
        expect(Number.isInteger(startMs) && Number.isInteger(endMs)).toBe(true)
        // end − start is the item's duration in the plugin's usage report; the clock runs on across streams.
        expect(endMs as number).toBeGreaterThan(startMs as number)
        expect(startMs as number).toBeGreaterThan(lastEndMs)
        // (A resampler's few samples of delay aside.)
        expect(startMs as number).toBeGreaterThanOrEqual(at.startMs - 20)
        lastEndMs = endMs as number
        interimText(events, item)
        const completed = events.find((e) => e.type === COMPLETED && e.item_id === item)
        expect(completed, `completed for ${String(item)}`).toBeDefined()
        expectCompletedAsRead(completed!)
        if (completed!.transcript) transcripts.push(completed!.transcript as string)
      }
      const heard = transcripts.join(' ')
      expect(wer(stream.truth, heard).wer, heard).toBeLessThanOrEqual(stream.maxWer)
    }
    p.expectNothingFatal()
    p.ws.close(1000)
    // Interim transcripts while the person is still speaking: a delta before the first speaker stopped.
    const firstDelta = p.received.find((r) => r.event.type === DELTA && r.event.delta !== '')
    expect(firstDelta).toBeDefined()
    expect(firstDelta!.framesSent).toBeLessThan(firstSpeechEndFrame)
  })

  it(`${REALTIME_ONLY_MODEL}: no server VAD, the plugin's own VAD commits the turn and gets its transcript`, async () => {
    const p = await PluginSocket.connect(url, REALTIME_ONLY_MODEL, s.asAlice)
    p.ws.send(sessionUpdate(REALTIME_ONLY_MODEL))
    const speechMs = (LEAD_SEC + recording(LIBRIVOX.file).length / 16000) * 1000
    // The commit goes out when the plugin's VAD has heard the speaker's silence; frames keep coming after it.
    await p.stream(LIBRIVOX.file, { ms: speechMs + VAD_SILENCE_MS, send: COMMIT })
    await p.until(0, (events) => events.some((e) => e.type === COMPLETED || e.type === 'error'))
    p.expectNothingFatal()
    p.ws.close(1000)
    const events = p.received.map((r) => r.event)
    // As OpenAI's realtime-only models: the server detects no turns of its own, the client's commit ends one.
    expect(events.filter((e) => String(e.type).startsWith('input_audio_buffer.speech_'))).toEqual([])
    const completed = events.find((e) => e.type === COMPLETED)!
    expectCompletedAsRead(completed)
    interimText(events, completed.item_id)
    expect(wer(LIBRIVOX.truth, completed.transcript as string).wer, completed.transcript as string).toBeLessThanOrEqual(LIBRIVOX.maxWer)
  })
})
