import { readFileSync } from 'node:fs'
import WebSocket from 'ws'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { wer } from '../src/asr/wer.js'
import { resampleAll } from '../src/audio/resample.js'
import { concatSamples, float32ToInt16 } from '../src/audio/signal.js'
import { readPcm16Wav } from '../src/audio/wav-header.js'
import { startTestServer, type TestServer } from './helpers/app.js'
import { RealtimeClient, type ServerEvent } from './helpers/realtime-client.js'

/**
 * OpenAI Realtime transcription sessions (`/v1/realtime?intent=transcription`) with a raw WebSocket client
 * sending the published API's events: a real recording streamed at real-time pace, manual commits, and
 * every kind of bad input answered with an `error` event in OpenAI's shape.
 */
const FIXTURES = new URL('./fixtures/real-speech/', import.meta.url)
const FIRST = 'and mister john dashwood had then leisure to consider how much there might be prudently in his power to do for them'
const SECOND = 'go forward ten meters'
const recording = (name: string): Float32Array => {
  const wav = readPcm16Wav(readFileSync(new URL(name, FIXTURES)))
  if (typeof wav === 'string') throw new Error(wav)
  return wav.samples
}
const silence = (sec: number) => new Float32Array(Math.round(sec * 16000))
const pcm24 = (samples: Float32Array) => Buffer.from(float32ToInt16(resampleAll(samples, 16000, 24000)).buffer)
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const transcription = (turnDetection: unknown = undefined) => ({
  type: 'session.update',
  session: {
    type: 'transcription',
    audio: {
      input: {
        format: { type: 'audio/pcm', rate: 24000 },
        transcription: { model: 'gpt-4o-transcribe', language: 'en' },
        noise_reduction: { type: 'near_field' },
        ...(turnDetection !== undefined && { turn_detection: turnDetection }),
      },
    },
  },
})

let s: TestServer
let url: string
beforeAll(async () => {
  s = await startTestServer({ maxBodyBytes: 256 * 1024 })
  url = await s.listen()
  await s.deps.asr.warm()
})
afterAll(async () => {
  await s.close()
})

const ofType = (type: string) => (e: ServerEvent) => e.type === type

describe('OpenAI Realtime transcription', () => {
  it('streams a real recording at real-time pace: deltas while audio is still sent, a completed transcript per turn', async () => {
    const c = await RealtimeClient.connect(url, s.asAlice)
    const created = await c.waitFor(ofType('session.created'))
    expect(created).toMatchObject({ session: { type: 'transcription', audio: { input: { format: { type: 'audio/pcm', rate: 24000 }, transcription: { model: 'gpt-4o-transcribe' } } } } })
    c.send(transcription({ type: 'server_vad', threshold: 0.5, prefix_padding_ms: 300, silence_duration_ms: 500 }))
    const updated = await c.waitFor(ofType('session.updated'))
    expect(updated).toMatchObject({ session: { audio: { input: { turn_detection: { type: 'server_vad', silence_duration_ms: 500 } } } } })
    const audio = pcm24(concatSamples([silence(0.5), recording('librivox-0870.wav'), silence(1), recording('goforward.wav'), silence(1)]))
    const frame = 24000 * 2 * 0.04
    let deltaBeforeLastFrame = false
    const start = performance.now()
    for (let at = 0, n = 0; at < audio.length; at += frame, n++) {
      c.send({ type: 'input_audio_buffer.append', audio: audio.subarray(at, at + frame).toString('base64') })
      if (c.events.some(ofType('conversation.item.input_audio_transcription.delta'))) deltaBeforeLastFrame = true
      // Real-time pace: each 40 ms frame is sent when its time has come.
      await sleep(Math.max(0, start + (n + 1) * 40 - performance.now()))
    }
    expect(deltaBeforeLastFrame).toBe(true)
    const second = await c.waitFor((e) => e.type === 'conversation.item.input_audio_transcription.completed' && e.transcript !== c.events.find(ofType('conversation.item.input_audio_transcription.completed'))?.transcript)
    const completed = c.events.filter(ofType('conversation.item.input_audio_transcription.completed'))
    expect(completed).toHaveLength(2)
    const [first] = completed
    // Each turn in order: speech_started, speech_stopped, committed (with the item before it), completed.
    const firstItem = first!.item_id as string
    const ofItem = c.events.filter((e) => e.item_id === firstItem).map((e) => e.type)
    expect(ofItem[0]).toBe('input_audio_buffer.speech_started')
    expect(ofItem.slice(-3)).toEqual(['input_audio_buffer.speech_stopped', 'input_audio_buffer.committed', 'conversation.item.input_audio_transcription.completed'])
    expect(c.events.find((e) => e.type === 'input_audio_buffer.committed' && e.item_id === second.item_id)).toMatchObject({ previous_item_id: firstItem })
    const deltas = c.events.filter((e) => e.type === 'conversation.item.input_audio_transcription.delta' && e.item_id === firstItem)
    expect(deltas.length).toBeGreaterThan(3)
    expect(deltas.every((d) => typeof d.delta === 'string' && d.event_id && d.content_index === 0)).toBe(true)
    expect(first).toMatchObject({ content_index: 0, usage: { type: 'duration' } })
    // As accurate as the whole-file route on the same recording, within the live decoder's margin.
    const form = new FormData()
    form.set('file', new Blob([readFileSync(new URL('librivox-0870.wav', FIXTURES))]), 'a.wav')
    form.set('model', 'whisper-1')
    const batch = await (await fetch(`${url}/v1/audio/transcriptions`, { method: 'POST', headers: s.asAlice, body: form })).json() as { text: string }
    const liveWer = wer(FIRST, first!.transcript as string).wer
    expect(liveWer).toBeLessThanOrEqual(wer(FIRST, batch.text).wer + 0.12)
    expect(wer(SECOND, second.transcript as string).wer).toBeLessThanOrEqual(0.25)
    c.ws.close()
    await c.waitClosed()
    // The session's audio counts against the account's monthly audio seconds.
    await sleep(50)
    expect((await s.deps.quota.usage(s.aliceAccount)).audioSeconds).toBeGreaterThan(audio.length / 48000 - 1)
  })

  it('without turn detection, input_audio_buffer.commit ends the turn; clear drops what was sent', async () => {
    const c = await RealtimeClient.connect(url, s.asAlice, '?model=whisper-1')
    c.send({ type: 'transcription_session.update', session: { input_audio_format: 'pcm16', turn_detection: null } })
    await c.waitFor(ofType('transcription_session.updated'))
    c.send({ type: 'input_audio_buffer.append', audio: pcm24(recording('cards-001.wav')).toString('base64') })
    c.send({ type: 'input_audio_buffer.clear' })
    await c.waitFor(ofType('input_audio_buffer.cleared'))
    const go = pcm24(recording('goforward.wav'))
    for (let at = 0; at < go.length; at += 9600) c.send({ type: 'input_audio_buffer.append', audio: go.subarray(at, at + 9600).toString('base64') })
    c.send({ type: 'input_audio_buffer.commit', event_id: 'c1' })
    const done = await c.waitFor(ofType('conversation.item.input_audio_transcription.completed'))
    expect(wer(SECOND, done.transcript as string).wer).toBeLessThanOrEqual(0.25)
    expect(c.events.some(ofType('input_audio_buffer.speech_started'))).toBe(false)
    expect(c.events.filter(ofType('input_audio_buffer.committed'))).toHaveLength(1)
    c.ws.close()
  })

  it('bad input gets an error event in OpenAI shape and the session goes on', async () => {
    const c = await RealtimeClient.connect(url, s.asAlice)
    await c.waitFor(ofType('session.created'))
    const errorAfter = async (send: () => void) => {
      const from = c.events.length
      send()
      return c.waitFor(ofType('error'), from)
    }
    const appendBefore = await errorAfter(() => c.send({ type: 'input_audio_buffer.append', audio: 'AAAA', event_id: 'e1' }))
    expect(appendBefore).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', code: 'bad_request', event_id: 'e1' } })
    expect(String((appendBefore.error as { message: string }).message)).toMatch(/before session.update/)
    expect(await errorAfter(() => c.ws.send('{not json'))).toMatchObject({ error: { message: expect.stringMatching(/JSON/) } })
    expect(await errorAfter(() => c.send({ type: 'response.create' }))).toMatchObject({ error: { message: expect.stringMatching(/unknown/) } })
    expect(await errorAfter(() => c.ws.send(Buffer.from([1, 2, 3]), { binary: true }))).toMatchObject({ error: { message: expect.stringMatching(/binary/) } })
    const wrongRate = await errorAfter(() => c.send({ type: 'session.update', session: { type: 'transcription', audio: { input: { format: { type: 'audio/pcm', rate: 7000 } } } } }))
    expect(wrongRate).toMatchObject({ error: { type: 'invalid_request_error', code: 'invalid_value', param: 'session.audio.input.format.rate' } })
    const realtime = await errorAfter(() => c.send({ type: 'session.update', session: { type: 'realtime' } }))
    expect(realtime).toMatchObject({ error: { param: 'session.type' } })
    c.send(transcription(null))
    await c.waitFor(ofType('session.updated'))
    const odd = await errorAfter(() => c.send({ type: 'input_audio_buffer.append', audio: Buffer.alloc(3).toString('base64') }))
    expect(odd).toMatchObject({ error: { message: expect.stringMatching(/even number of bytes/) } })
    const empty = await errorAfter(() => c.send({ type: 'input_audio_buffer.commit' }))
    expect(empty).toMatchObject({ error: { message: expect.stringMatching(/nothing to commit/) } })
    // 10,000 tiny frames: each is taken, none is an error.
    const from = c.events.length
    for (let i = 0; i < 10_000; i++) c.send({ type: 'input_audio_buffer.append', audio: 'AAA=' })
    c.send({ type: 'input_audio_buffer.commit' })
    await c.waitFor(ofType('conversation.item.input_audio_transcription.completed'), from)
    expect(c.events.slice(from).some(ofType('error'))).toBe(false)
    // Still serving: a frame over the size limit closes with 1009 and a reason.
    c.ws.send(JSON.stringify({ type: 'input_audio_buffer.append', audio: 'A'.repeat(300 * 1024) }))
    const closed = await c.waitClosed()
    expect(closed.code).toBe(1009)
    expect(closed.reason).toMatch(/send smaller messages/)
    const again = await RealtimeClient.connect(url, s.asAlice)
    await again.waitFor(ofType('session.created'))
    again.ws.close()
  })

  it('refuses a missing key and another intent before the upgrade, in OpenAI shape', async () => {
    const status = (query: string, headers: Record<string, string>) => new Promise<{ status: number; body: string }>((resolve, reject) => {
      const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/v1/realtime${query}`, { headers })
      ws.once('unexpected-response', (_req, res) => {
        let body = ''
        res.on('data', (d: Buffer) => (body += String(d)))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
      })
      ws.once('open', () => reject(new Error('upgraded')))
      ws.once('error', () => {})
    })
    const noKey = await status('?intent=transcription', {})
    expect(noKey.status).toBe(401)
    expect(JSON.parse(noKey.body)).toMatchObject({ error: { code: 'invalid_api_key' } })
    const other = await status('?intent=conversation', s.asAlice)
    expect(other.status).toBe(400)
    expect(JSON.parse(other.body)).toMatchObject({ error: { param: 'intent' } })
  })

  it("takes the key from a browser's subprotocols, as OpenAI's browser client sends it, and never echoes it", async () => {
    type Opened = { ws: WebSocket; chosen: string | undefined; first: Promise<ServerEvent> } | { status: number }
    const open = (protocols: string[]) => new Promise<Opened>((resolve) => {
      const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/v1/realtime?intent=transcription`, protocols)
      // Listening from the start: session.created may come with the upgrade's answer.
      const first = new Promise<ServerEvent>((r) => ws.once('message', (d: Buffer) => r(JSON.parse(String(d)) as ServerEvent)))
      let chosen: string | undefined
      ws.once('upgrade', (res) => (chosen = res.headers['sec-websocket-protocol']))
      ws.once('open', () => resolve({ ws, chosen, first }))
      ws.once('unexpected-response', (_req, res) => resolve({ status: res.statusCode ?? 0 }))
      // A client that offered only the key gets no subprotocol back, which ws refuses: still not echoed.
      ws.once('error', () => resolve({ ws, chosen, first }))
    })
    const browser = await open(['realtime', `openai-insecure-api-key.${s.alice}`])
    if (!('ws' in browser)) throw new Error(`refused with ${browser.status}`)
    expect(browser.chosen).toBe('realtime')
    expect((await browser.first).type).toBe('session.created')
    browser.ws.close()
    const onlyKey = await open([`openai-insecure-api-key.${s.alice}`])
    if (!('ws' in onlyKey)) throw new Error(`refused with ${onlyKey.status}`)
    expect(onlyKey.chosen).toBeUndefined()
    onlyKey.ws.terminate()
    expect(await open(['realtime', 'openai-insecure-api-key.parla_nope'])).toEqual({ status: 401 })
  })
})
