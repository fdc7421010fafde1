/**
 * Fuzzing the live transcription sockets: OpenAI Realtime (`/v1/realtime`, JSON events) and `/v1/asr/live`
 * (MessagePack frames), with sequences of valid, malformed and hostile client events on one WebSocket.
 */
import { decode, encode } from '@msgpack/msgpack'
import fc from 'fast-check'
import WebSocket from 'ws'
import type { TestServer } from '../helpers/app.js'
import { field, hostileBytes, hostileString, hostileValue } from './arbitraries.js'
import { check } from './invariants.js'
import type { FuzzProperty } from './property.js'

type Sent = { kind: 'text'; value: string } | { kind: 'bytes'; value: Uint8Array }

/** Close codes the server may send: normal (idle), policy (too many bad events), too big. Never 1011 or a drop. */
const ALLOWED_CLOSE = new Set([1000, 1008, 1009])

/** Base64 PCM: silence, an odd length, noise, not base64. */
const audio = fc.oneof(
  fc.constantFrom(Buffer.alloc(960).toString('base64'), Buffer.alloc(3).toString('base64'), '', '!!!not base64'),
  fc.uint8Array({ maxLength: 2000 }).map((b) => Buffer.from(b).toString('base64')),
  hostileValue,
)
const sessionUpdate = fc.record({
  type: fc.constantFrom('session.update', 'transcription_session.update'),
  session: fc.oneof(
    fc.record({
      type: field(fc.constant('transcription')),
      audio: field(fc.record({ input: field(fc.record({
        format: field(fc.record({ type: field(fc.constantFrom('audio/pcm', 'audio/pcmu')), rate: field(fc.constantFrom(24000, 16000, 7000, 8000.5)) }, { requiredKeys: [] })),
        turn_detection: field(fc.constantFrom(null, { type: 'server_vad', silence_duration_ms: 200 }, { type: 'nope' }, { type: 'server_vad', threshold: 2 })),
        transcription: field(fc.record({ model: field(fc.constant('whisper-1')), language: field(fc.constantFrom('en', 'xx')) }, { requiredKeys: [] })),
      }, { requiredKeys: [] })) }, { requiredKeys: [] })),
    }, { requiredKeys: [] }),
    fc.record({ input_audio_format: field(fc.constantFrom('pcm16', 'g711_ulaw')), turn_detection: field(fc.constant(null)) }, { requiredKeys: [] }),
    hostileValue,
  ),
})
const realtimeEvent: fc.Arbitrary<Sent> = fc.oneof(
  { weight: 3, arbitrary: sessionUpdate.map((e) => ({ kind: 'text' as const, value: JSON.stringify(e) })) },
  { weight: 4, arbitrary: fc.record({ type: fc.constant('input_audio_buffer.append'), audio }, { requiredKeys: ['type'] }).map((e) => ({ kind: 'text' as const, value: JSON.stringify(e) })) },
  { weight: 2, arbitrary: fc.constantFrom('input_audio_buffer.commit', 'input_audio_buffer.clear', 'response.create').map((type) => ({ kind: 'text' as const, value: JSON.stringify({ type, event_id: 'x' }) })) },
  { weight: 1, arbitrary: hostileValue.map((v) => ({ kind: 'text' as const, value: JSON.stringify(v) ?? 'undefined' })) },
  { weight: 1, arbitrary: hostileString.map((value) => ({ kind: 'text' as const, value })) },
  { weight: 1, arbitrary: hostileBytes.map((value) => ({ kind: 'bytes' as const, value })) },
)

const asrStart = fc.record({
  sample_rate: field(fc.constantFrom(16000, 24000, 7000)),
  language: field(fc.constantFrom('en', 'xx')),
  vad: field(fc.boolean()),
  silence_ms: field(fc.constantFrom(200, -1)),
}, { requiredKeys: [] })
const asrFrame: fc.Arbitrary<Sent> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ event: fc.constant('start'), request: fc.oneof(asrStart, hostileValue) }).map((v) => ({ kind: 'bytes' as const, value: encode(v) })) },
  { weight: 4, arbitrary: fc.record({ event: fc.constant('audio'), audio: fc.oneof(fc.uint8Array({ maxLength: 2000 }), hostileValue) }).map((v) => ({ kind: 'bytes' as const, value: encode(v) })) },
  { weight: 2, arbitrary: fc.constantFrom('commit', 'stop', 'nope').map((event) => ({ kind: 'bytes' as const, value: encode({ event }) })) },
  { weight: 1, arbitrary: hostileValue.map((v) => ({ kind: 'bytes' as const, value: encode(v) })) },
  { weight: 1, arbitrary: hostileBytes.map((value) => ({ kind: 'bytes' as const, value })) },
  { weight: 1, arbitrary: hostileString.map((value) => ({ kind: 'text' as const, value })) },
)

/** Sends `frames` on one socket, lets it settle, and returns what came back and how it closed. */
async function exchange(s: TestServer, path: string, frames: readonly Sent[]) {
  const ws = new WebSocket(`${s.url.replace(/^http/, 'ws')}${path}`, { headers: s.asAlice })
  const received: { data: Buffer; binary: boolean }[] = []
  let closed: number | undefined
  let last: number
  ws.on('message', (data: Buffer, binary) => {
    received.push({ data, binary })
    last = performance.now()
  })
  ws.on('close', (code) => (closed = code))
  ws.on('error', () => {})
  await new Promise<void>((resolve, reject) => ws.once('open', () => resolve()).once('error', reject))
  for (const f of frames) {
    if (ws.readyState !== ws.OPEN) break
    ws.send(f.value, { binary: f.kind === 'bytes' })
  }
  const from = performance.now()
  last = from
  while (closed === undefined && performance.now() - last < 300 && performance.now() - from < 10_000) await new Promise((r) => setTimeout(r, 25))
  const serverClosed = closed
  if (ws.readyState === ws.OPEN) ws.close()
  check(serverClosed === undefined || ALLOWED_CLOSE.has(serverClosed), `the server closed with ${serverClosed}`)
  return received
}

async function realtimeSession(s: TestServer, frames: readonly Sent[]): Promise<void> {
  for (const r of await exchange(s, '/v1/realtime?intent=transcription', frames)) {
    check(!r.binary, 'a binary frame from the realtime server')
    const e = JSON.parse(String(r.data)) as Record<string, unknown>
    check(typeof e.type === 'string' && typeof e.event_id === 'string', 'a server event without type or event_id', e)
    if (e.type === 'error' || e.type === 'conversation.item.input_audio_transcription.failed') {
      const err = e.error as Record<string, unknown>
      check(typeof err === 'object' && err !== null && ['message', 'type', 'param', 'code'].every((k) => k in err), 'an error without message, type, param, code', e)
      check(typeof err.message === 'string' && err.message !== '' && err.message !== 'Internal server error', 'an error without a client-facing message', e)
      check(err.type !== 'server_error', 'a server_error', e)
    }
  }
}

async function asrLiveSession(s: TestServer, frames: readonly Sent[]): Promise<void> {
  for (const r of await exchange(s, '/v1/asr/live', frames)) {
    check(r.binary, 'a text frame from /v1/asr/live')
    const o = decode(r.data) as Record<string, unknown>
    check(['partial', 'final', 'failed', 'finish'].includes(o.event as string), 'an unknown server frame', o)
    if (o.event === 'finish' && o.reason === 'error') check(typeof o.message === 'string' && o.message !== '' && o.message !== 'Internal server error', 'finish/error without a client-facing message', o)
  }
}

export const liveAsrProperties: readonly FuzzProperty[] = [
  {
    name: 'realtime /v1/realtime: event sequences',
    runs: 30,
    listen: true,
    property: (s) => fc.asyncProperty(fc.array(realtimeEvent, { minLength: 1, maxLength: 10 }), (frames) => realtimeSession(s, frames)) as never,
  },
  {
    name: 'live ASR socket /v1/asr/live: frame sequences',
    runs: 30,
    listen: true,
    property: (s) => fc.asyncProperty(fc.array(asrFrame, { minLength: 1, maxLength: 10 }), (frames) => asrLiveSession(s, frames)) as never,
  },
]
