/** Fuzzing the live socket: sequences of valid, malformed and hostile frames on one WebSocket. */
import { decode, encode } from '@msgpack/msgpack'
import fc from 'fast-check'
import WebSocket from 'ws'
import type { TestServer } from '../helpers/app.js'
import { field, hostileBytes, hostileString, hostileValue } from './arbitraries.js'
import { check } from './invariants.js'
import type { FuzzProperty } from './property.js'

type Frame = { kind: 'map'; value: unknown } | { kind: 'bytes'; value: Uint8Array } | { kind: 'text'; value: string }

const startRequest = fc.record(
  {
    text: field(fc.constantFrom('', 'Hi.')),
    format: field(fc.constantFrom('pcm', 'wav', 'mp3', 'opus')),
    sample_rate: field(fc.constantFrom(16000, 8000)),
    latency: field(fc.constantFrom('low', 'balanced', 'normal')),
    reference_id: field(fc.constantFrom(null, 'nobody')),
    unknown_field: hostileValue,
  },
  { requiredKeys: [] },
)

const frame: fc.Arbitrary<Frame> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ event: fc.constant('start'), request: fc.oneof({ weight: 4, arbitrary: startRequest }, { weight: 1, arbitrary: hostileValue }, { weight: 1, arbitrary: hostileBytes }) }).map((value) => ({ kind: 'map' as const, value })) },
  { weight: 3, arbitrary: fc.record({ event: fc.constant('text'), text: fc.oneof({ weight: 3, arbitrary: fc.constantFrom('Hi. ', 'there ', ') ', '') }, { weight: 1, arbitrary: hostileValue }) }).map((value) => ({ kind: 'map' as const, value })) },
  { weight: 2, arbitrary: fc.constantFrom('flush', 'stop').map((event) => ({ kind: 'map' as const, value: { event } })) },
  { weight: 1, arbitrary: fc.record({ event: hostileValue }, { requiredKeys: [] }).map((value) => ({ kind: 'map' as const, value })) },
  { weight: 1, arbitrary: hostileValue.map((value) => ({ kind: 'map' as const, value })) },
  { weight: 1, arbitrary: hostileBytes.map((value) => ({ kind: 'bytes' as const, value })) },
  { weight: 1, arbitrary: hostileString.map((value) => ({ kind: 'text' as const, value })) },
)

/** Close codes the server may send: normal, policy (too many bad frames), too big. Never 1011 or a bare drop. */
const ALLOWED_CLOSE = new Set([1000, 1008, 1009])

async function session(s: TestServer, frames: readonly Frame[]): Promise<void> {
  const ws = new WebSocket(`${s.url.replace(/^http/, 'ws')}/v1/tts/live`, { headers: s.asAlice })
  const received: { data: Buffer; binary: boolean }[] = []
  let closed: number | undefined
  let last: number
  ws.on('message', (data: Buffer, binary) => {
    received.push({ data, binary })
    last = performance.now()
  })
  ws.on('close', (code) => (closed = code))
  ws.on('error', () => {})
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve())
    ws.once('error', reject)
  })
  for (const f of frames) {
    if (ws.readyState !== ws.OPEN) break
    if (f.kind === 'text') ws.send(f.value)
    else ws.send(f.kind === 'bytes' ? f.value : encode(f.value), { binary: true })
  }
  // Settle: until the server closes, or sends nothing for 300 ms (bounded at 10 s). Only what arrived is judged.
  const from = performance.now()
  last = from
  while (closed === undefined && performance.now() - last < 300 && performance.now() - from < 10_000) await new Promise((r) => setTimeout(r, 25))
  const serverClosed = closed
  if (ws.readyState === ws.OPEN) ws.close()
  for (const r of received) {
    check(r.binary, 'a text frame from the server')
    let m: unknown
    try {
      m = decode(r.data)
    } catch {
      throw new Error('a server frame that is not MessagePack')
    }
    const o = m as Record<string, unknown>
    check(typeof o === 'object' && o !== null && (o.event === 'audio' || o.event === 'finish'), 'a server frame that is not audio or finish', o)
    if (o.event === 'audio') check(o.audio instanceof Uint8Array && o.audio.length > 0, 'an audio frame without bytes')
    if (o.event === 'finish') {
      check(o.reason === 'stop' || o.reason === 'error', 'finish with another reason', o)
      if (o.reason === 'error') check(typeof o.message === 'string' && o.message !== '' && o.message !== 'Internal server error', 'finish/error without a client-facing message', o)
    }
  }
  check(serverClosed === undefined || ALLOWED_CLOSE.has(serverClosed), `the server closed with ${serverClosed}`)
}

export const fishLiveProperties: readonly FuzzProperty[] = [
  {
    name: 'live socket /v1/tts/live: frame sequences',
    runs: 40,
    listen: true,
    property: (s) => fc.asyncProperty(fc.array(frame, { minLength: 1, maxLength: 8 }), (frames) => session(s, frames)) as never,
  },
]
