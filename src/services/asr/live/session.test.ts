import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readPcm16Wav } from '../../../audio/wav-header.js'
import { resampleAll } from '../../../audio/resample.js'
import { concatSamples, float32ToInt16 } from '../../../audio/signal.js'
import { wer } from '../../../asr/wer.js'
import { SpeechError } from '../../../errors.js'
import { createPocketsphinxEngine, type PocketsphinxEngine } from '../../../engines/asr/pocketsphinx/index.js'
import type { AsrEngine, AsrStream } from '../../../engines/asr/types.js'
import { isAbortError } from '../../../errors.js'
import { createConcurrencyGate } from '../concurrency-gate.js'
import { LiveSession, type LiveEvent, type LiveSessionOptions } from './session.js'
import { DEFAULT_TURN } from './turn-detector.js'

const FIXTURES = new URL('../../../../test/fixtures/real-speech/', import.meta.url)
const FIRST = 'and mister john dashwood had then leisure to consider how much there might be prudently in his power to do for them'
const SECOND = 'go forward ten meters'

const recording = (name: string): Float32Array => {
  const wav = readPcm16Wav(readFileSync(new URL(name, FIXTURES)))
  if (typeof wav === 'string') throw new Error(wav)
  return wav.samples
}
const round3 = (x: number) => Math.round(x * 1000) / 1000
const silence = (sec: number) => new Float32Array(Math.round(sec * 16000))

/** Two turns with pauses, at `rate`, as 16-bit little-endian bytes; and where the second one starts. */
function conversation(rate: number): { bytes: Uint8Array; secondAt: number } {
  const first = recording('librivox-0870.wav')
  const audio = concatSamples([silence(0.8), first, silence(1.2), recording('goforward.wav'), silence(1.2)])
  const pcm = float32ToInt16(resampleAll(audio, 16000, rate))
  return { bytes: new Uint8Array(pcm.buffer), secondAt: 0.8 + first.length / 16000 + 1.2 }
}

/** Feeds `bytes` in frames of `frameMs`, then ends the session and collects its events. */
async function run(session: LiveSession, bytes: Uint8Array, rate: number, frameMs = 20): Promise<LiveEvent[]> {
  const events: LiveEvent[] = []
  const done = (async () => {
    for await (const e of session.events()) events.push(e)
  })()
  const step = Math.round((rate * frameMs) / 1000) * 2
  for (let at = 0; at < bytes.length; at += step) session.append(bytes.subarray(at, at + step))
  session.end()
  await done
  return events
}

let engine: PocketsphinxEngine
const gate = createConcurrencyGate(2)
const options = (over: Partial<LiveSessionOptions> = {}): LiveSessionOptions => ({
  engine, hold: (signal) => gate.hold(signal), inputRate: 24000, language: 'en', turns: DEFAULT_TURN, maxBacklogSec: 60, ...over,
})

beforeAll(async () => {
  engine = createPocketsphinxEngine({ workers: 2 })
  await engine.ready()
})
afterAll(async () => {
  await engine.close()
})

/** What a turn's stream was asked, in order: `feed`, `soFar` (a speculative final), `end`; and how each speculation ended. */
interface StreamLog {
  readonly calls: ('feed' | 'soFar' | 'end')[]
  readonly speculations: Promise<'answered' | 'aborted' | 'failed'>[]
}

/** The engine, each turn's stream calls logged; `speculative: false` hides `decodeSoFar` (the plain end). */
function logging(logs: StreamLog[], speculative = true): AsrEngine {
  return {
    ...engine,
    id: 'logged',
    capabilities: engine.capabilities,
    transcribe: (s, o) => engine.transcribe(s, o),
    openStream: async (first, o) => {
      const log: StreamLog = { calls: [], speculations: [] }
      logs.push(log)
      const opened = await engine.openStream(first, o)
      const inner = opened.stream
      const stream: AsrStream = {
        feed: (pcm) => (log.calls.push('feed'), inner.feed(pcm)),
        end: () => (log.calls.push('end'), inner.end()),
        ...(speculative && {
          decodeSoFar: (signal: AbortSignal) => {
            log.calls.push('soFar')
            const words = inner.decodeSoFar!(signal)
            log.speculations.push(words.then(() => 'answered', (err) => (isAbortError(err) ? 'aborted' : 'failed')))
            return words
          },
        }),
      }
      return { ...opened, stream }
    },
    close: async () => {},
  }
}

describe('live session', () => {
  it('finds both turns of a real recording at 24 kHz, with partials, finals and word times in the session clock', async () => {
    const { bytes, secondAt } = conversation(24000)
    const events = await run(new LiveSession(options()), bytes, 24000)
    const kinds = events.map((e) => e.type)
    const finals = events.filter((e) => e.type === 'final')
    expect(finals).toHaveLength(2)
    const [one, two] = finals
    expect(wer(FIRST, one!.text).wer).toBeLessThan(0.45)
    expect(wer(SECOND, two!.text).wer).toBeLessThanOrEqual(0.25)
    // Each turn: speech_started, partials, speech_stopped, committed, final, in that order.
    expect(kinds.indexOf('speech_started')).toBe(0)
    const firstFinal = kinds.indexOf('final')
    expect(kinds.slice(0, firstFinal).filter((k) => k === 'partial').length).toBeGreaterThan(5)
    expect(kinds.slice(firstFinal - 2, firstFinal)).toEqual(['speech_stopped', 'committed'])
    // Deltas only append: joined, they are the stable words of the last partial.
    const partials = events.filter((e): e is Extract<LiveEvent, { type: 'partial' }> => e.type === 'partial' && e.turn === one!.turn)
    expect(partials.map((p) => p.delta).join('')).toBe(partials.at(-1)!.stable)
    expect(partials.at(-1)!.stable.split(' ').length).toBeGreaterThan(8)
    // Times are the session's: the second turn's words come after the pause, not from 0.
    expect(one!.words[0]!.start).toBeGreaterThan(0.5)
    expect(two!.words[0]!.start).toBeGreaterThan(secondAt - 0.3)
    expect(two!.words[0]!.start).toBeLessThan(secondAt + 1)
    const started = events.filter((e) => e.type === 'speech_started')
    expect(started[1]!.atSec).toBeGreaterThan(secondAt - 0.5)
    expect(gate.active).toBe(0)
  })

  it('a later turn starts its decoder at once, measuring the channel on the turn before', async () => {
    const opened: { first: number; channel: number | undefined }[] = []
    const spy: AsrEngine = {
      ...engine,
      id: 'spy',
      capabilities: engine.capabilities,
      transcribe: (s, o) => engine.transcribe(s, o),
      openStream: (first, o) => {
        opened.push({ first: first.length, channel: o.channel?.length })
        return engine.openStream(first, o)
      },
      close: async () => {},
    }
    const events = await run(new LiveSession(options({ engine: spy })), conversation(24000).bytes, 24000)
    expect(events.filter((e) => e.type === 'final')).toHaveLength(2)
    expect(opened).toHaveLength(2)
    expect(opened[0]).toEqual({ first: 16000, channel: undefined })
    expect(opened[1]!.first).toBeLessThan(16000)
    expect(opened[1]!.channel).toBe(48000)
  })

  it("a turn's final is its decoder's words for all the audio the turn held, padding included, in the session's clock", async () => {
    const heard: Int16Array[][] = []
    const channels: (Int16Array | undefined)[] = []
    const copy = (pcm: Int16Array) => pcm.slice()
    const spy: AsrEngine = {
      ...engine,
      id: 'spy',
      capabilities: engine.capabilities,
      transcribe: (s, o) => engine.transcribe(s, o),
      openStream: async (first, o) => {
        const turn = [copy(first)]
        heard.push(turn)
        channels.push(o.channel?.slice())
        const opened = await engine.openStream(first, o)
        const { stream } = opened
        return { ...opened, stream: { feed: (pcm) => (turn.push(copy(pcm)), stream.feed(pcm)), end: () => stream.end() } }
      },
      close: async () => {},
    }
    const events = await run(new LiveSession(options({ engine: spy })), conversation(24000).bytes, 24000)
    const finals = events.filter((e) => e.type === 'final')
    expect(finals).toHaveLength(2)
    const started = events.filter((e) => e.type === 'speech_started')
    for (const [i, final] of finals.entries()) {
      const audio = new Int16Array(heard[i]!.reduce((n, pcm) => n + pcm.length, 0))
      heard[i]!.reduce((at, pcm) => (audio.set(pcm, at), at + pcm.length), 0)
      // Everything the turn held went to the decoder: the padding before the detected start and the silence
      // that ended it.
      expect(audio.length).toBe(Math.round(final.audioSec * 16000))
      expect(final.audioSec).toBeGreaterThan(DEFAULT_TURN.prefixPaddingMs / 1000 + DEFAULT_TURN.silenceMs / 1000)
      // The same blocks (and channel) through a stream of their own give the same words, timed from the turn's start.
      const [first, ...rest] = heard[i]!
      const { stream } = await engine.openStream(first!.slice(), { language: 'en', channel: channels[i] })
      for (const pcm of rest) await stream.feed(pcm.slice())
      const replayed = await stream.end()
      expect(replayed.length).toBeGreaterThan(2)
      const at = started[i]!.atSec
      expect(final.words).toEqual(replayed.map((w) => ({ ...w, start: round3(w.start + at), end: round3(w.end + at) })))
    }
  })

  it('without turn detection, one turn per commit; an empty commit is an error', async () => {
    const session = new LiveSession(options({ turns: null, inputRate: 16000 }))
    const events: LiveEvent[] = []
    const done = (async () => {
      for await (const e of session.events()) events.push(e)
    })()
    session.commit()
    const pcm = float32ToInt16(recording('goforward.wav'))
    for (let at = 0; at < pcm.length; at += 320) session.append(new Uint8Array(pcm.slice(at, at + 320).buffer))
    session.commit()
    session.end()
    await done
    expect(events[0]).toMatchObject({ type: 'error' })
    expect(events.filter((e) => e.type === 'speech_started')).toHaveLength(0)
    const final = events.find((e) => e.type === 'final')
    expect(final && wer(SECOND, final.text).wer).toBeLessThanOrEqual(0.25)
  })

  it('an engine without live decoding gets the turn whole at its end: same turns, no partials', async () => {
    const batchOnly: AsrEngine = { id: 'batch', capabilities: engine.capabilities, transcribe: (s, o) => engine.transcribe(s, o), close: async () => {} }
    const { bytes } = conversation(16000)
    const events = await run(new LiveSession(options({ engine: batchOnly, inputRate: 16000 })), bytes, 16000)
    expect(events.filter((e) => e.type === 'partial')).toHaveLength(0)
    const finals = events.filter((e) => e.type === 'final')
    expect(finals).toHaveLength(2)
    expect(wer(SECOND, finals[1]!.text).wer).toBeLessThanOrEqual(0.25)
  })

  it('refuses odd-length frames and a backlog past its bound, and keeps working', async () => {
    const session = new LiveSession(options({ maxBacklogSec: 1, inputRate: 16000 }))
    expect(() => session.append(new Uint8Array(3))).toThrow(/even number of bytes/)
    expect(() => session.append(new Uint8Array(16000 * 2 * 2))).toThrow(SpeechError)
    try {
      session.append(new Uint8Array(16000 * 2 * 2))
    } catch (err) {
      expect((err as SpeechError).code).toBe('rate_limited')
    }
    session.append(new Uint8Array(3200))
    session.close()
  })

  it('a turn the gate turns away fails alone; the session goes on to the next one', async () => {
    let calls = 0
    const busy = options({
      hold: (signal) => (++calls === 1 ? Promise.reject(new SpeechError('engine_busy', 'full')) : gate.hold(signal)),
    })
    const events = await run(new LiveSession(busy), conversation(24000).bytes, 24000)
    expect(events.find((e) => e.type === 'failed')).toMatchObject({ error: { code: 'engine_busy' } })
    const finals = events.filter((e) => e.type === 'final')
    expect(finals).toHaveLength(1)
    expect(wer(SECOND, finals[0]!.text).wer).toBeLessThanOrEqual(0.25)
    expect(gate.active).toBe(0)
  })

  it('says idle after its idle time without audio, and close drops a turn under way', async () => {
    const session = new LiveSession(options({ idleMs: 50, inputRate: 16000 }))
    const pcm = float32ToInt16(recording('goforward.wav'))
    session.append(new Uint8Array(pcm.buffer))
    const seen: string[] = []
    for await (const e of session.events()) {
      seen.push(e.type)
      if (e.type === 'idle') session.close()
    }
    expect(seen).toContain('idle')
    expect(seen).not.toContain('final')
    await new Promise((r) => setTimeout(r, 50))
    expect(gate.active).toBe(0)
  })

  it('a turn that ends in the silence after a pause takes the speculative final: the same words as the plain end, nothing fed after it', async () => {
    const { bytes } = conversation(24000)
    const speculative: StreamLog[] = []
    const events = await run(new LiveSession(options({ engine: logging(speculative) })), bytes, 24000)
    const plain: StreamLog[] = []
    const without = await run(new LiveSession(options({ engine: logging(plain, false) })), bytes, 24000)
    const finals = (list: LiveEvent[]) => list.filter((e) => e.type === 'final').map((e) => e.text)
    expect(finals(events)).toHaveLength(2)
    expect(finals(events)).toEqual(finals(without))
    for (const log of speculative) {
      // The stream's end comes straight after a speculation that answered (the engine then does not decode again).
      expect(log.calls.slice(-2)).toEqual(['soFar', 'end'])
      expect(await log.speculations.at(-1)).toBe('answered')
    }
    for (const log of plain) expect(log.calls.at(-1)).toBe('end')
  })

  it('speech after a pause drops its speculative final and the turn goes on with the held audio', async () => {
    // Two recordings, their silence trimmed, 0.3 s apart: a pause longer than a speculation waits for (0.1 s),
    // shorter than the end of a turn (0.5 s).
    const go = recording('goforward.wav').subarray(0, 2.25 * 16000)
    const next = recording('librivox-0880.wav').subarray(0.25 * 16000)
    const audio = concatSamples([silence(0.8), go, silence(0.25), next, silence(1.2)])
    const logs: StreamLog[] = []
    const events = await run(new LiveSession(options({ engine: logging(logs), inputRate: 16000 })), new Uint8Array(float32ToInt16(audio).buffer), 16000)
    const finals = events.filter((e) => e.type === 'final')
    expect(finals).toHaveLength(1)
    const spoken = finals[0]!.text.split(' ')
    expect(spoken).toContain('forward')
    expect(spoken.length).toBeGreaterThan(8)
    const calls = logs[0]!.calls
    const outcomes = await Promise.all(logs[0]!.speculations)
    expect(outcomes.filter((o) => o === 'aborted').length).toBeGreaterThan(0)
    expect(outcomes.at(-1)).toBe('answered')
    // After each dropped speculation the held audio went to the decoder before any other: one at a time.
    calls.slice(0, -2).forEach((call, i) => call === 'soFar' && expect(calls[i + 1]).toBe('feed'))
    expect(gate.active).toBe(0)
  })
})
