import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startWyomingServer, type WyomingServer } from '../src/api/wyoming/server.js'
import { readFileSync } from 'node:fs'
import { corpusWer } from '../src/asr/wer.js'
import { float32ToInt16 } from '../src/audio/signal.js'
import { readPcm16Wav } from '../src/audio/wav-header.js'
import { wavHeader } from '../src/audio/encoders/wav.js'
import type { FestivalEngine } from '../src/engines/tts/festival/index.js'
import { startTestServer, type TestServer } from './helpers/app.js'
import { ttsSpeech } from './helpers/asr-audio.js'
import { pcm16, speechRmsDb } from './helpers/tts-audio.js'
import { wyomingClient, type Event } from './helpers/wyoming-client.js'

/**
 * The Wyoming server against a client written from the protocol's documentation: describe, one-shot and
 * streaming synthesis, transcription, bad events and abrupt closes.
 */
let s: TestServer
let wyoming: WyomingServer

beforeAll(async () => {
  s = await startTestServer()
  wyoming = await startWyomingServer(s.deps, { host: '127.0.0.1', port: 0, log: s.app.log })
})
afterAll(async () => {
  await wyoming.close()
  await s.close()
})

const audioOf = (events: Event[]) => Buffer.concat(events.filter((e) => e.type === 'audio-chunk').map((e) => e.payload!))
/** The same text as 22.05 kHz pcm from `/v1/tts`, in bytes. */
const fishPcmBytes = async (text: string, voice = 'festival-slt') =>
  (await s.app.inject({ method: 'POST', url: '/v1/tts', headers: s.asAlice, payload: { text, format: 'pcm', sample_rate: 22050, reference_id: voice } })).rawPayload.length

describe('describe', () => {
  it('answers info with TTS voices (languages) and the ASR model, in the fields Home Assistant requires', async () => {
    const c = await wyomingClient(wyoming.port)
    c.send('describe')
    const info = await c.next()
    expect(info.type).toBe('info')
    const tts = (info.data.tts as { voices: { name: string; languages: string[]; installed: boolean; attribution: { name: string } }[]; supports_synthesize_streaming: boolean }[])[0]!
    expect(tts.supports_synthesize_streaming).toBe(true)
    expect((info.data.asr as { supports_transcript_streaming: boolean }[])[0]!.supports_transcript_streaming).toBe(true)
    const slt = tts.voices.find((v) => v.name === 'festival-slt')!
    expect(slt.languages).toContain('en')
    expect(slt.installed).toBe(true)
    expect(slt.attribution.name).toBe('Parla')
    expect(tts.voices.some((v) => v.languages.includes('de'))).toBe(true)
    const asr = (info.data.asr as { models: { name: string; languages: string[] }[] }[])[0]!
    expect(asr.models[0]!.languages).toEqual(['en'])
    c.close()
  })
})

describe('synthesize', () => {
  const TEXT = 'The kitchen lights are on. The front door is locked.'

  it('one-shot: audio-start, audio-chunks of 16-bit mono, audio-stop; the same speech as /v1/tts', async () => {
    const c = await wyomingClient(wyoming.port)
    c.send('synthesize', { text: TEXT, voice: { name: 'festival-slt' } })
    const events = await c.until('audio-stop')
    expect(events[0]).toMatchObject({ type: 'audio-start', data: { rate: 22050, width: 2, channels: 1 } })
    expect(events.slice(1, -1).every((e) => e.type === 'audio-chunk' && e.data.rate === 22050 && e.payload!.length <= 2048)).toBe(true)
    const pcm = audioOf(events)
    expect(Math.abs(pcm.length - (await fishPcmBytes(TEXT)))).toBeLessThan(22050 * 2 * 0.02)
    expect(speechRmsDb(pcm16(pcm), 22050)).toBeGreaterThan(-35)
    c.close()
  })

  it('data inline in the header (early clients) and a voice by language', async () => {
    const c = await wyomingClient(wyoming.port)
    c.sendInline('synthesize', { text: 'Guten Morgen.', voice: { language: 'de' } })
    const events = await c.until('audio-stop')
    expect(audioOf(events).length).toBeGreaterThan(22050 * 2 * 0.3)
    c.close()
  })

  it('streaming: sentences are spoken as text arrives; the trailing whole-text synthesize is not spoken twice', async () => {
    const c = await wyomingClient(wyoming.port)
    c.send('synthesize-start', { voice: { name: 'festival-slt' } })
    c.send('synthesize-chunk', { text: 'The kitchen lights ' })
    c.send('synthesize-chunk', { text: 'are on. The front' })
    // The first sentence is complete: its audio comes before the rest of the text is sent.
    const first = await c.until('audio-chunk')
    expect(first[0]).toMatchObject({ type: 'audio-start', data: { rate: 22050 } })
    c.send('synthesize-chunk', { text: ' door is locked.' })
    c.send('synthesize', { text: TEXT, voice: { name: 'festival-slt' } })
    c.send('synthesize-stop')
    const rest = await c.until('synthesize-stopped')
    const types = rest.map((e) => e.type)
    expect(types.at(-2)).toBe('audio-stop')
    expect(types.filter((t) => t === 'audio-start')).toHaveLength(0)
    const pcm = audioOf([...first, ...rest])
    const separate = (await fishPcmBytes('The kitchen lights are on.')) + (await fishPcmBytes('The front door is locked.'))
    expect(Math.abs(pcm.length - separate) / separate).toBeLessThan(0.05)
    c.close()
  })
})

describe('transcribe', () => {
  it('transcribe, audio-start, audio-chunks, audio-stop → transcript', async () => {
    const text = 'Please remember to buy milk and bread on your way home.'
    const speech = await ttsSpeech(s, text, 16000)
    const pcm = Buffer.alloc(speech.samples.length * 2)
    speech.samples.forEach((x, i) => pcm.writeInt16LE(Math.max(-32768, Math.min(32767, Math.round(x * 32767))), i * 2))
    const c = await wyomingClient(wyoming.port)
    c.send('transcribe', { language: 'en' })
    c.send('audio-start', { rate: 16000, width: 2, channels: 1 })
    for (let at = 0; at < pcm.length; at += 2048) c.send('audio-chunk', { rate: 16000, width: 2, channels: 1 }, pcm.subarray(at, at + 2048))
    c.send('audio-stop')
    const events = await c.until('transcript')
    const transcript = events.at(-1)!
    // A client that knows only `transcript` skips the streaming events before it.
    expect(events[0]!.type).toBe('transcript-start')
    expect(events.at(-2)!.type).toBe('transcript-stop')
    expect(transcript.data.language).toBe('en')
    // The same samples sent to /v1/asr's service as a WAV file give the same words: the frames carried the
    // audio whole and in order. (How well the engine hears festival is measured by the ASR tests.)
    const direct = await s.deps.asr.transcribe({ audio: Buffer.concat([wavHeader(16000, pcm.length), pcm]), filename: 'x.wav', language: 'en' })
    expect(String(transcript.data.text)).toBe(direct.text)
    expect(corpusWer([{ reference: text, hypothesis: String(transcript.data.text) }]).wer).toBeLessThanOrEqual(0.5)
    c.close()
  })

  it('an utterance shorter than a second still gets a transcript', async () => {
    const speech = await ttsSpeech(s, 'Turn it off.', 16000)
    const pcm = Buffer.alloc(speech.samples.length * 2)
    speech.samples.forEach((x, i) => pcm.writeInt16LE(Math.round(x * 32000), i * 2))
    expect(pcm.length).toBeLessThan(32000)
    const c = await wyomingClient(wyoming.port)
    c.send('transcribe')
    c.send('audio-start', { rate: 16000, width: 2, channels: 1 })
    c.send('audio-chunk', { rate: 16000, width: 2, channels: 1 }, pcm)
    c.send('audio-stop')
    expect((await c.until('transcript')).at(-1)!.type).toBe('transcript')
    c.close()
  })

  it('streams: a real recording sent at real-time pace gets transcript-chunk events before audio-stop', async () => {
    const wav = readPcm16Wav(readFileSync(new URL('./fixtures/real-speech/librivox-0870.wav', import.meta.url)))
    if (typeof wav === 'string') throw new Error(wav)
    const pcm = Buffer.from(float32ToInt16(wav.samples).buffer)
    const c = await wyomingClient(wyoming.port)
    const seen: Event[] = []
    let stopSent = false
    let chunksBeforeStop = 0
    const reading = (async () => {
      for (;;) {
        const e = await c.next()
        seen.push(e)
        if (e.type === 'transcript-chunk' && !stopSent) chunksBeforeStop++
        if (e.type === 'transcript') return
      }
    })()
    c.send('transcribe', { language: 'en' })
    c.send('audio-start', { rate: 16000, width: 2, channels: 1 })
    const start = performance.now()
    const frame = 3200
    for (let at = 0, n = 0; at < pcm.length; at += frame, n++) {
      c.send('audio-chunk', { rate: 16000, width: 2, channels: 1 }, pcm.subarray(at, at + frame))
      await new Promise((r) => setTimeout(r, Math.max(0, start + (n + 1) * 100 - performance.now())))
    }
    // A microphone goes on sending (silence) until the client's own end of speech; on a busy machine the
    // decoder may still be behind the speech, so silence goes on until the words have come (at most 30 s).
    const silence = Buffer.alloc(frame)
    for (let waited = 0; chunksBeforeStop < 3 && waited < 30_000; waited += 100) {
      c.send('audio-chunk', { rate: 16000, width: 2, channels: 1 }, silence)
      await new Promise((r) => setTimeout(r, 100))
    }
    stopSent = true
    c.send('audio-stop')
    await reading
    expect(chunksBeforeStop).toBeGreaterThan(2)
    const types = seen.map((e) => e.type)
    expect(types[0]).toBe('transcript-start')
    expect(types.slice(-2)).toEqual(['transcript-stop', 'transcript'])
    // Chunks append: joined, they read as words separated by single spaces. (How many of the utterance's
    // words they reach before audio-stop depends on how busy the machine is: the final transcript has them all.)
    const joined = seen.filter((e) => e.type === 'transcript-chunk').map((e) => String(e.data.text)).join('')
    expect(joined).toMatch(/^[a-z'.]+( [a-z'.]+){2,}$/)
    expect(String(seen.at(-1)!.data.text).split(' ').length).toBeGreaterThan(10)
    c.close()
  })
})

describe('bad input', () => {
  it('a header that is not JSON, an unknown event, bad audio format, an unknown voice: error events, and the connection goes on', async () => {
    const c = await wyomingClient(wyoming.port)
    c.raw('this is not json\n')
    expect(await c.next()).toMatchObject({ type: 'error', data: { code: 'bad_request' } })
    c.send('make-coffee')
    expect(String((await c.next()).data.text)).toContain("unknown event type 'make-coffee'")
    c.send('audio-start', { rate: 16000, width: 4, channels: 1 })
    expect(String((await c.next()).data.text)).toContain('"width" must be 2')
    c.send('synthesize', { text: 'Hello.', voice: { name: 'no-such-voice' } })
    const err = await c.next()
    expect(err.type).toBe('error')
    expect(String(err.data.text)).toContain('no-such-voice')
    // The way to list voices on this protocol, not the Fish route's.
    expect(String(err.data.text)).toContain('describe')
    c.send('synthesize', { text: 42 })
    expect(String((await c.next()).data.text)).toContain('"text"')
    // Nothing to say is an error, as on the HTTP surfaces, not an empty audio-start … audio-stop.
    c.send('synthesize', { text: ')', voice: { name: 'festival-slt' } })
    expect(await c.next()).toMatchObject({ type: 'error', data: { code: 'unusable_input', text: expect.stringContaining('nothing to speak') } })
    c.send('synthesize-chunk', { text: 'orphan' })
    expect(String((await c.next()).data.text)).toContain('before synthesize-start')
    c.send('describe')
    expect((await c.next()).type).toBe('info')
    c.close()
  })

  it('streamed text that never ends a sentence may not grow past maxTextLength', async () => {
    const c = await wyomingClient(wyoming.port)
    c.send('synthesize-start', {})
    c.send('synthesize-chunk', { text: 'a'.repeat(s.deps.config.maxTextLength + 1) })
    expect(String((await c.next()).data.text)).toContain(`the limit is ${s.deps.config.maxTextLength}`)
    c.send('synthesize-stop')
    // The failed request says nothing more but that it stopped.
    expect((await c.next()).type).toBe('synthesize-stopped')
    c.close()
  })

  it('a size the stream cannot be framed past is an error, then the server closes the connection', async () => {
    const c = await wyomingClient(wyoming.port)
    c.raw(JSON.stringify({ type: 'audio-chunk', payload_length: -5 }) + '\n')
    expect((await c.next()).type).toBe('error')
    await c.closed
  })
})

describe('start-up', () => {
  it('a port in use is refused with a message naming the setting', async () => {
    await expect(startWyomingServer(s.deps, { host: '127.0.0.1', port: wyoming.port, log: s.app.log })).rejects.toThrow(/cannot listen on 127\.0\.0\.1:\d+ \(EADDRINUSE\); set wyomingPort/)
  })
})

describe('abrupt closes', () => {
  it('a client that hangs up mid-synthesis stops the engine; the server keeps serving', async () => {
    const festival = (await s.deps.speech.engines.get('festival')) as FestivalEngine
    const long = Array.from({ length: 8 }, () => 'Engineers replaced the deck, the cables and most of the steel supports under the river.').join(' ')
    const c = await wyomingClient(wyoming.port)
    c.send('synthesize', { text: long, voice: { name: 'festival-slt' } })
    await c.until('audio-chunk')
    expect(festival.processIds().busy.length).toBeGreaterThan(0)
    c.close()
    await expect.poll(() => festival.processIds().busy, { timeout: 5000 }).toEqual([])
    const again = await wyomingClient(wyoming.port)
    again.send('describe')
    expect((await again.next()).type).toBe('info')
    again.close()
  })

  it('a connection cut inside an event (half a header, half a payload) is dropped without harm', async () => {
    const c = await wyomingClient(wyoming.port)
    c.raw('{"type": "audio-chunk", "payload_length": 1000}\n' + 'x'.repeat(10))
    c.close()
    const d = await wyomingClient(wyoming.port)
    d.raw('{"type": "descr')
    d.close()
    const e = await wyomingClient(wyoming.port)
    e.send('describe')
    expect((await e.next()).type).toBe('info')
    e.close()
  })
})
