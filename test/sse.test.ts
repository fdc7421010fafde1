import { encode } from '@msgpack/msgpack'
import { request, type IncomingMessage } from 'node:http'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { ffmpegDecode } from './support/audio.js'
import type { FestivalEngine } from '../src/engines/tts/festival/index.js'
import { startTestServer, type TestServer } from './helpers/app.js'
import { parseSse, rebuild, type StreamingEvent } from './helpers/sse.js'

const URL_SSE = '/v1/tts/stream/with-timestamp'
// Five sentences: with chunk_length 100 and balanced latency, several text chunks of several sentences each.
const TEXT = 'First sentence is here. Second one follows it. Third sentence comes now. Fourth is last, and it is a little longer than the others. Fifth closes.'
const TEXT_WORDS = TEXT.split(/\s+/).map((w) => w.replace(/[.,!?]+$/, ''))

/** Decoding arguments per format, and how far the decoded length may be from the timeline (s). */
const FORMATS = {
  wav: { args: [], slack: 0.002 },
  pcm: { args: ['-f', 's16le', '-ar', '44100', '-ac', '1'], slack: 0.002 },
  // A stream has no LAME tag, so the decoder keeps the final frame's padding: up to one frame (1152 samples).
  mp3: { args: [], slack: 1152 / 44100 + 0.002 },
  opus: { args: [], slack: 0.002 },
} as const

describe('POST /v1/tts/stream/with-timestamp', () => {
  let s: TestServer
  const sse = async (body: object, headers: Record<string, string> = {}) => {
    const res = await s.app.inject({ method: 'POST', url: URL_SSE, headers: { ...s.asAlice, 'content-type': 'application/json', ...headers }, payload: body })
    return { res, events: res.statusCode === 200 ? parseSse(res.body) : [] }
  }
  beforeAll(async () => {
    s = await startTestServer()
  })
  afterAll(async () => {
    s.app.server.closeAllConnections()
    await s.close()
  })

  it.each(Object.keys(FORMATS) as (keyof typeof FORMATS)[])('%s: the rebuilt audio decodes, and chunk offsets add up to its length', async (format) => {
    const { res, events } = await sse({ text: TEXT, format, chunk_length: 100, latency: 'balanced' })
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toBe('text/event-stream; charset=utf-8')
    expect(res.headers['cache-control']).toBe('no-cache')
    // Every message is one `data: <json>` line and a blank line; nothing else.
    expect(res.body).toMatch(/^(data: \{[^\n]*\}\n\n)+$/)
    for (const e of events) {
      expect(Object.keys(e).sort()).toEqual(['alignment', 'audio_base64', 'chunk_audio_offset_sec', 'chunk_seq', 'content'])
      expect(Number.isInteger(e.chunk_seq) && e.chunk_seq >= 0).toBe(true)
      expect(e.chunk_audio_offset_sec).toBeGreaterThanOrEqual(0)
      expect(typeof e.audio_base64).toBe('string')
    }
    const { audio, chunks } = rebuild(events)
    const decoded = await ffmpegDecode(audio, [...FORMATS[format].args])
    const rate = format === 'opus' ? 48000 : 44100
    expect(chunks.size).toBeGreaterThanOrEqual(2)
    expect([...chunks.keys()]).toEqual([...chunks.keys()].map((_, i) => i))
    // Each chunk starts where the previous one ends; mp3 starts after LAME's priming (1105 samples).
    const seqs = [...chunks.values()]
    expect(seqs[0]!.offset).toBeCloseTo(format === 'mp3' ? 1105 / 44100 : 0, 5)
    for (let i = 1; i < seqs.length; i++) {
      expect(seqs[i]!.offset).toBeCloseTo(seqs[i - 1]!.offset + seqs[i - 1]!.alignment.audio_duration, 5)
    }
    const last = seqs.at(-1)!
    const end = last.offset + last.alignment.audio_duration
    expect(Math.abs(decoded.length / rate - end)).toBeLessThanOrEqual(FORMATS[format].slack)
    if (format !== 'mp3') expect(decoded.length / rate).toBeGreaterThanOrEqual(end - 0.002)
  })

  it('alignment snapshots grow per chunk_seq; stored by replacement they hold every word of the text once', async () => {
    const { events } = await sse({ text: TEXT, format: 'wav', chunk_length: 100, latency: 'balanced' })
    const perSeq = new Map<number, NonNullable<StreamingEvent['alignment']>[]>()
    for (const e of events) if (e.alignment) perSeq.set(e.chunk_seq, [...(perSeq.get(e.chunk_seq) ?? []), e.alignment])
    let grew = false
    for (const snaps of perSeq.values()) {
      for (let i = 1; i < snaps.length; i++) {
        const [prev, next] = [snaps[i - 1]!, snaps[i]!]
        // A later snapshot extends the earlier one: same words first, never less audio.
        expect(next.segments.slice(0, prev.segments.length).map((w) => w.text)).toEqual(prev.segments.map((w) => w.text))
        expect(next.segments.length).toBeGreaterThanOrEqual(prev.segments.length)
        expect(next.audio_duration).toBeGreaterThanOrEqual(prev.audio_duration)
        if (next.segments.length > prev.segments.length) grew = true
      }
    }
    // Balanced latency renders a chunk in several pieces, so some chunk has several growing snapshots.
    expect(grew).toBe(true)
    const { words } = rebuild(events)
    expect(words.map((w) => w.text)).toEqual(TEXT_WORDS)
    // Appending every snapshot instead would repeat words: the rule matters.
    const appended = events.flatMap((e) => e.alignment?.segments ?? [])
    expect(appended.length).toBeGreaterThan(TEXT_WORDS.length)
  })

  it('every snapshot is ordered, non-overlapping and within its audio_duration; content is the chunk text', async () => {
    const text = '[excited] Hello there (laughing) my friend. [pause] It costs $5, okay? [whispering] See you soon.'
    const { events } = await sse({ text, format: 'mp3', chunk_length: 100, prosody: { speed: 1.3 } }, { model: 's2-pro' })
    for (const e of events) {
      if (!e.alignment) continue
      let floor = 0
      for (const w of e.alignment.segments) {
        expect(w.start).toBeGreaterThanOrEqual(floor)
        expect(w.end).toBeGreaterThanOrEqual(w.start)
        expect(w.end).toBeLessThanOrEqual(e.alignment.audio_duration)
        floor = w.end
      }
    }
    const { words, chunks } = rebuild(events)
    // Tags are neither spoken nor timed; "$5" is one segment although it is spoken as two words.
    expect(words.map((w) => w.text)).toEqual(['Hello', 'there', 'my', 'friend', 'It', 'costs', '$5', 'okay', 'See', 'you', 'soon'])
    const contents = [...chunks.values()].map((c) => c.content)
    expect(contents.join(' ').replace(/\s+/g, ' ')).toBe('Hello there my friend. It costs $5, okay? See you soon.')
    for (const c of chunks.values()) {
      expect(c.alignment.segments.map((w) => w.text).join(' ')).toBe(c.content.replace(/[.,?!]/g, ''))
    }
    // An event's content always describes its own chunk_seq.
    for (const e of events) expect(e.content).toBe(chunks.get(e.chunk_seq)!.content)
  })

  it('MessagePack and JSON bodies give the same stream', async () => {
    // flite is deterministic (festival's HTS excitation is not), so the two streams can be compared byte for byte.
    const body = { text: 'Hello there, this is the same request sent in two encodings.', format: 'pcm', sample_rate: 16000, reference_id: 'flite-rms', prosody: { speed: 1.2, volume: -3 } }
    const json = await sse(body)
    const res = await s.app.inject({ method: 'POST', url: URL_SSE, headers: { ...s.asAlice, 'content-type': 'application/msgpack' }, payload: Buffer.from(encode(body)) })
    expect(res.statusCode).toBe(200)
    const packed = parseSse(res.body)
    expect(rebuild(packed).audio.equals(rebuild(json.events).audio)).toBe(true)
    expect(rebuild(packed).words).toEqual(rebuild(json.events).words)
    expect(rebuild(packed).audio.length).toBeGreaterThan(16000)
  })

  it('accepts a missing or unknown model header', async () => {
    for (const model of [undefined, 's1', 'speech-1.5', 'whatever']) {
      const { res, events } = await sse({ text: 'Hi there.', format: 'pcm' }, model ? { model } : {})
      expect(res.statusCode).toBe(200)
      expect(rebuild(events).words.map((w) => w.text)).toEqual(['Hi', 'there'])
    }
  })

  it.each([
    ['chunk_length below 100', { text: 'Hi', chunk_length: 5 }],
    ['an unknown format', { text: 'Hi', format: 'flac' }],
    ['no text', { format: 'mp3' }],
    ['empty text', { text: '   ' }],
    ['speed out of range', { text: 'Hi', prosody: { speed: 3 } }],
    ['a wrong type', { text: 'Hi', latency: 7 }],
  ])('validation: %s is the same 422 as /v1/tts', async (what, body) => {
    const tts = await s.app.inject({ method: 'POST', url: '/v1/tts', headers: { ...s.asAlice, 'content-type': 'application/json' }, payload: body })
    const { res } = await sse(body)
    expect(res.statusCode).toBe(422)
    expect(res.headers['content-type']).toMatch(/^application\/json/)
    expect(tts.statusCode).toBe(422)
    expect(res.json()).toEqual(tts.json())
    // Every 422 is the list naming the field, blank text included.
    if (what === 'empty text') expect(res.json()).toEqual([{ loc: ['body', 'text'], type: 'string_too_short', msg: 'text is empty; send the text to speak', in: 'body' }])
    else expect(res.json()[0]).toMatchObject({ loc: expect.arrayContaining(['body']), type: expect.any(String), msg: expect.any(String) })
  })

  it('an unknown reference_id is a 404 before any event, like /v1/tts', async () => {
    const body = { text: 'Hello there.', reference_id: 'no-such-voice' }
    const { res } = await sse(body)
    const tts = await s.app.inject({ method: 'POST', url: '/v1/tts', headers: { ...s.asAlice, 'content-type': 'application/json' }, payload: body })
    expect(res.statusCode).toBe(404)
    expect(res.json()).toEqual({ status: 404, message: "Voice model 'no-such-voice' not found; list voices with GET /model" })
    expect(res.json()).toEqual(tts.json())
    const noAuth = await s.app.inject({ method: 'POST', url: URL_SSE, headers: { 'content-type': 'application/json' }, payload: body })
    expect(noAuth.statusCode).toBe(401)
  })

  it('a client that closes the response stops synthesis: festival goes idle and nothing more is rendered', async () => {
    const url = await s.listen()
    const festival = (await s.deps.speech.engines.get('festival')) as FestivalEngine
    // Spies: render events the pipeline produces, and engine calls (one per sentence or so).
    let produced = 0
    let renderSignal: AbortSignal | undefined
    const prepare = s.deps.tts.prepare.bind(s.deps.tts)
    const spy = vi.spyOn(s.deps.tts, 'prepare').mockImplementation(async (...args) => {
      const speech = await prepare(...args)
      return {
        ...speech,
        render: async function* (signal?: AbortSignal) {
          renderSignal = signal
          for await (const e of speech.render(signal)) {
            produced++
            yield e
          }
        },
      }
    })
    const calls = vi.spyOn(festival, 'synthesize')
    const SENTENCES = 40
    const long = Array.from({ length: SENTENCES }, (_, i) => `This is sentence number ${i + 1} of a long text.`).join(' ')
    try {
      const req = request(`${url}${URL_SSE}`, { method: 'POST', agent: false, headers: { ...s.asAlice, 'content-type': 'application/json' } })
      req.end(JSON.stringify({ text: long, format: 'wav' }))
      const res = await new Promise<IncomingMessage>((resolve) => req.once('response', resolve))
      expect(res.statusCode).toBe(200)
      // Read until the first timing snapshot, then stop reading (without closing yet).
      await new Promise<void>((resolve) => {
        let received = ''
        const onData = (data: Buffer) => {
          received += String(data)
          if (!received.includes('"alignment":{')) return
          res.off('data', onData)
          res.pause()
          resolve()
        }
        res.on('data', onData)
      })
      // festival takes a process per sentence, so wait for a moment it is working.
      await expect.poll(() => festival.processIds().busy.length, { timeout: 120_000, interval: 1 }).toBeGreaterThan(0)
      req.destroy()
      // The server has seen the client go (on a busy machine that can take a while, and festival may be idle
      // between two sentences before it), then festival goes idle.
      await expect.poll(() => renderSignal?.aborted, { timeout: 120_000, interval: 2 }).toBe(true)
      await expect.poll(() => festival.processIds().busy, { timeout: 120_000, interval: 2 }).toEqual([])
      // It stays stopped: after a pause, nothing more was rendered or synthesized (a pipeline that went on
      // would keep festival busy for the 40 sentences).
      const [events, started] = [produced, calls.mock.calls.length]
      await new Promise((r) => setTimeout(r, 300))
      expect(festival.processIds().busy).toEqual([])
      expect(produced).toBe(events)
      expect(calls.mock.calls.length).toBe(started)
    } finally {
      spy.mockRestore()
      calls.mockRestore()
    }
  })

})
