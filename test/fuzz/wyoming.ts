/**
 * Fuzzing the Wyoming TCP protocol: sequences of well-formed, malformed and out-of-order events on one
 * connection — JSON headers that are not JSON or not objects, `data_length`/`payload_length` that are wrong,
 * negative, fractional or huge, binary garbage, unknown types, events only a server sends, and audio formats
 * and payloads that make no sense. The server may answer only with well-framed events of its own, errors
 * with a message that says what to fix, close only after saying why, and let go of every connection.
 */
import { connect } from 'node:net'
import fc from 'fast-check'
import { startWyomingServer, type WyomingServer } from '../../src/api/wyoming/server.js'
import type { TestServer } from '../helpers/app.js'
import { hostileBytes, hostileNumber, hostileString, hostileValue } from './arbitraries.js'
import { check, Violation } from './invariants.js'
import type { FuzzProperty } from './property.js'

interface ServerEvent {
  type: string
  data: Record<string, unknown>
  payload?: Buffer
}

const SERVER_TYPES = new Set(['info', 'pong', 'audio-start', 'audio-chunk', 'audio-stop', 'synthesize-stopped', 'transcript-start', 'transcript-chunk', 'transcript-stop', 'transcript', 'error'])

/** One Wyoming server per fuzzed Parla, started on first use and closed by `after`. */
const servers = new WeakMap<TestServer, Promise<WyomingServer>>()
const wyomingOf = (s: TestServer) => {
  let w = servers.get(s)
  if (!w) servers.set(s, (w = startWyomingServer(s.deps, { host: '127.0.0.1', port: 0, log: s.app.log })))
  return w
}

const rarely = <T>(valid: fc.Arbitrary<T>) => fc.oneof({ weight: 6, arbitrary: valid }, { weight: 1, arbitrary: hostileValue })
const voice = fc.record({ name: rarely(fc.constantFrom('festival-slt', 'flite-rms', 'espeak-ng-en', 'nobody', '')), language: rarely(fc.constantFrom('en', 'de', 'en_US', 'xx')), speaker: hostileValue }, { requiredKeys: [] })
const format = fc.record({ rate: rarely(fc.constantFrom(16000, 22050, 8000, 48000, 7999, 0)), width: rarely(fc.constantFrom(2, 1, 4)), channels: rarely(fc.constantFrom(1, 2, 3)) }, { requiredKeys: [] })
const noise = fc.oneof(fc.uint8Array({ minLength: 2, maxLength: 4096 }), hostileBytes)

/** An event as the protocol means it: type, data and payload. */
const event = fc.oneof(
  { weight: 2, arbitrary: fc.constant({ type: 'describe', data: {} }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('ping'), data: fc.record({ text: hostileValue }, { requiredKeys: [] }) }) },
  { weight: 3, arbitrary: fc.record({ type: fc.constant('synthesize'), data: fc.record({ text: rarely(fc.constantFrom('Hi.', 'Turn on the light.', '', ')')), voice: rarely(voice) }, { requiredKeys: [] }) }) },
  { weight: 2, arbitrary: fc.record({ type: fc.constant('synthesize-start'), data: fc.record({ voice: rarely(voice) }, { requiredKeys: [] }) }) },
  { weight: 3, arbitrary: fc.record({ type: fc.constant('synthesize-chunk'), data: fc.record({ text: rarely(fc.constantFrom('Hi. ', 'there', '. ', '')) }, { requiredKeys: [] }) }) },
  { weight: 2, arbitrary: fc.constantFrom('synthesize-stop', 'audio-stop').map((type) => ({ type, data: {} })) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('transcribe'), data: fc.record({ language: rarely(fc.constantFrom('en', 'zh', '')), name: hostileValue }, { requiredKeys: [] }) }) },
  { weight: 2, arbitrary: fc.record({ type: fc.constant('audio-start'), data: format }) },
  { weight: 3, arbitrary: fc.record({ type: fc.constant('audio-chunk'), data: format, payload: noise }) },
  { weight: 1, arbitrary: fc.record({ type: fc.oneof(fc.constantFrom('info', 'transcript', 'error', 'run-pipeline', 'synthesize-stopped', 'pong'), hostileString), data: fc.dictionary(hostileString, hostileValue, { maxKeys: 3 }) }) },
)

/** How the event is put on the wire, rightly or wrongly. */
const framing = fc.oneof(
  { weight: 6, arbitrary: fc.constant({ kind: 'separate' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'inline' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('wrong-length' as const), dataDelta: fc.integer({ min: -8, max: 8 }), payloadDelta: fc.integer({ min: -8, max: 8 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('hostile-length' as const), key: fc.constantFrom('data_length', 'payload_length'), value: fc.oneof(hostileNumber, fc.constantFrom(2 ** 40, 1024 * 1024 + 1, 4 * 1024 * 1024 + 1, '12', null, -1, 1.5)) }) },
)

const frame = fc.oneof(
  { weight: 8, arbitrary: fc.tuple(event, framing).map(([e, f]) => encodeFrame(e, f)) },
  { weight: 1, arbitrary: fc.oneof(hostileString, fc.constantFrom('[1]', '"x"', 'null', '{}', '{"type":""}', '{"type":1}', '{"type":"describe","data":[1]}', '{"type":"describe"')).map((line) => Buffer.from(`${line}\n`)) },
  { weight: 1, arbitrary: hostileBytes.map((b) => Buffer.from(b)) },
  { weight: 1, arbitrary: fc.constant(Buffer.alloc(70 * 1024, 0x61)) },
)

/** Coherent exchanges (a transcription, a streamed synthesis) that random frames are then mixed into. */
const separate = { kind: 'separate' as const }
const scenario = fc.oneof(
  fc.tuple(fc.constantFrom('en', 'zh', ''), fc.oneof({ weight: 4, arbitrary: fc.constantFrom({ rate: 16000, width: 2, channels: 1 }, { rate: 22050, width: 2, channels: 2 }) }, { weight: 1, arbitrary: format }), fc.array(noise, { maxLength: 4 })).map(([language, f, chunks]) => [
    encodeFrame({ type: 'transcribe', data: { language } }, separate),
    encodeFrame({ type: 'audio-start', data: f }, separate),
    ...chunks.map((c) => encodeFrame({ type: 'audio-chunk', data: f, payload: c }, separate)),
    encodeFrame({ type: 'audio-stop', data: {} }, separate),
  ]),
  fc.tuple(voice, fc.array(fc.constantFrom('Hi. ', 'Turn on ', 'the light. ', ''), { maxLength: 4 })).map(([v, texts]) => [
    encodeFrame({ type: 'synthesize-start', data: { voice: v } }, separate),
    ...texts.map((text) => encodeFrame({ type: 'synthesize-chunk', data: { text } }, separate)),
    encodeFrame({ type: 'synthesize-stop', data: {} }, separate),
  ]),
)

/** A scenario with random frames inserted at random places, or random frames alone. */
const frames = fc.oneof(
  fc.array(frame, { minLength: 1, maxLength: 8 }),
  fc.tuple(scenario, fc.array(fc.tuple(fc.nat(), frame), { maxLength: 3 })).map(([base, extra]) => {
    const out = [...base]
    for (const [at, f] of extra) out.splice(at % (out.length + 1), 0, f)
    return out
  }),
)

type Framing = { kind: 'separate' | 'inline' } | { kind: 'wrong-length'; dataDelta: number; payloadDelta: number } | { kind: 'hostile-length'; key: string; value: unknown }

function encodeFrame(e: { type: unknown; data: Record<string, unknown>; payload?: Uint8Array }, f: Framing): Buffer {
  if (f.kind === 'inline') return Buffer.concat([Buffer.from(`${JSON.stringify({ type: e.type, data: e.data })}\n`), e.payload ? Buffer.from(e.payload) : Buffer.alloc(0)])
  const data = Buffer.from(JSON.stringify(e.data))
  const payload = Buffer.from(e.payload ?? [])
  const header: Record<string, unknown> = { type: e.type, data_length: data.length, ...(payload.length > 0 && { payload_length: payload.length }) }
  if (f.kind === 'wrong-length') {
    header.data_length = Math.max(0, data.length + f.dataDelta)
    header.payload_length = Math.max(0, payload.length + f.payloadDelta)
  }
  if (f.kind === 'hostile-length') header[f.key] = f.value
  return Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`), data, payload])
}

/** Everything the server sent, parsed strictly: a byte that does not frame is a violation. */
function parseAll(bytes: Buffer): ServerEvent[] {
  const events: ServerEvent[] = []
  let at = 0
  while (at < bytes.length) {
    const nl = bytes.indexOf(0x0a, at)
    check(nl >= 0, 'server bytes that end inside a header', bytes.subarray(at, at + 100).toString())
    let header: { type?: unknown; data?: Record<string, unknown>; data_length?: number; payload_length?: number }
    try {
      header = JSON.parse(bytes.subarray(at, nl).toString('utf8')) as typeof header
    } catch {
      throw new Violation(`a server header that is not JSON: ${bytes.subarray(at, Math.min(nl, at + 100)).toString()}`)
    }
    const dataLength = header.data_length ?? 0
    const payloadLength = header.payload_length ?? 0
    check(typeof header.type === 'string' && Number.isInteger(dataLength) && Number.isInteger(payloadLength), 'a server header without type or with bad lengths', header)
    const end = nl + 1 + dataLength + payloadLength
    // The client stops reading at some point: a last event may be cut short, and is then not judged.
    if (end > bytes.length) break
    const data = { ...(header.data ?? {}), ...(dataLength > 0 ? (JSON.parse(bytes.subarray(nl + 1, nl + 1 + dataLength).toString('utf8')) as Record<string, unknown>) : {}) }
    events.push({ type: header.type as string, data, ...(payloadLength > 0 && { payload: bytes.subarray(nl + 1 + dataLength, end) }) })
    at = end
  }
  return events
}

function checkEvent(e: ServerEvent): void {
  check(SERVER_TYPES.has(e.type), `the server sent a '${e.type}' event`)
  if (e.type === 'error') {
    check(typeof e.data.text === 'string' && e.data.text !== '' && e.data.text !== 'Internal server error', 'an error without a client-facing text', e.data)
    check(typeof e.data.code === 'string', 'an error without a code', e.data)
  }
  if (e.type === 'audio-chunk') check(e.payload !== undefined && e.payload.length % 2 === 0 && e.data.rate === 22050 && e.data.width === 2, 'an audio-chunk without 16-bit audio', e.data)
  if (e.type === 'transcript') check(typeof e.data.text === 'string', 'a transcript without text', e.data)
}

/** Waits until the server has no connection open (the client closed), up to `ms`. */
async function released(w: WyomingServer, ms = 5000): Promise<number> {
  for (const until = performance.now() + ms; w.connections() > 0 && performance.now() < until;) await new Promise((r) => setTimeout(r, 25))
  return w.connections()
}

/** Ends a session that waits for its answers: events run in order, so its pong comes after all of them. */
const LAST_PING = encodeFrame({ type: 'ping', data: { text: 'fuzz-end' } }, { kind: 'separate' })

async function session(w: WyomingServer, frames: readonly Buffer[], split: number, hangUp: boolean): Promise<void> {
  const socket = connect(w.port, '127.0.0.1')
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject))
  socket.on('error', () => {})
  const chunks: Buffer[] = []
  let closedByServer = false
  let last: number
  socket.on('data', (c: Buffer) => (chunks.push(c), (last = performance.now())))
  socket.on('end', () => (closedByServer = true))
  // Frames go out in pieces that cut across event boundaries, as TCP may deliver them.
  const all = Buffer.concat(hangUp ? frames : [...frames, LAST_PING])
  for (let at = 0; at < all.length && !socket.destroyed; at += split) socket.write(all.subarray(at, at + split))
  // Settle: until the last pong or a close; a client hanging up mid-work waits for a 300 ms pause only, and a
  // ping swallowed by a wrong length for 1 s (bounded at 10 s). Only what arrived is judged.
  const from = performance.now()
  const quiet = hangUp ? 300 : 1000
  const ponged = () => Buffer.concat(chunks).includes('fuzz-end')
  last = from
  while (!closedByServer && !ponged() && performance.now() - last < quiet && performance.now() - from < 10_000) await new Promise((r) => setTimeout(r, 25))
  socket.destroy()
  const events = parseAll(Buffer.concat(chunks))
  for (const e of events) checkEvent(e)
  // The server closes only when the stream cannot be framed any further, and says so first.
  if (closedByServer) check(events.at(-1)?.type === 'error', 'the server closed without an error event', events.map((e) => e.type))
  const open = await released(w)
  check(open === 0, `${open} Wyoming connections still open after the client closed`)
}

/** Normal service after fuzzing: describe, then a synthesis with audio, and nothing left open; then close. */
async function stillServing(s: TestServer): Promise<void> {
  const w = await wyomingOf(s)
  try {
    const socket = connect(w.port, '127.0.0.1')
    const chunks: Buffer[] = []
    socket.on('data', (c: Buffer) => chunks.push(c))
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject))
    socket.write(`${JSON.stringify({ type: 'describe' })}\n${JSON.stringify({ type: 'synthesize', data: { text: 'Still here.', voice: { name: 'festival-slt' } } })}\n`)
    for (let i = 0; i < 600 && !parseAll(Buffer.concat(chunks)).some((e) => e.type === 'audio-stop'); i++) await new Promise((r) => setTimeout(r, 50))
    socket.destroy()
    const events = parseAll(Buffer.concat(chunks))
    check(events[0]?.type === 'info', 'describe did not answer info after fuzzing', events.map((e) => e.type))
    const audio = events.filter((e) => e.type === 'audio-chunk').reduce((n, e) => n + e.payload!.length, 0)
    check(events.at(-1)?.type === 'audio-stop' && audio > 22050, 'a normal synthesis failed after fuzzing', { types: events.map((e) => e.type), audio })
    check((await released(w)) === 0, 'Wyoming connections still open after fuzzing')
  } finally {
    servers.delete(s)
    await w.close()
  }
}

export const wyomingProperties: readonly FuzzProperty[] = [
  {
    name: 'Wyoming TCP: event sequences, broken framing and lengths, garbage, events out of order',
    runs: 30,
    property: (s) =>
      fc.asyncProperty(frames, fc.constantFrom(1 << 20, 1 << 20, 7, 64, 1000), fc.boolean(), async (frames, split, hangUp) => session(await wyomingOf(s), frames, split, hangUp)) as never,
    after: stillServing,
  },
]
