/**
 * The contract every TTS engine keeps (src/engines/tts/types.ts), as one suite each engine's test file runs:
 *
 *   const engine = runTtsEngineConformance({ name: 'flite', create: () => createFliteEngine({ processes: 1 }), voice: 'slt' })
 *
 * It speaks with word timings that slice the text, honours `rate` and `pitchSemitones` where its
 * capabilities say so, stops on abort and when the consumer stops reading (checked by effect: the engine
 * is free again and keeps working), survives hostile text and rejects unknown voices. `skip` names cases an
 * engine cannot meet, each with the reason, which shows in the test name. Returns the engine, for the
 * file's own engine-specific tests. Call it at the top level of the test file.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { isAbortError } from '../../../src/errors.js'
import type { TtsEngine } from '../../../src/engines/tts/types.js'
import {
  collect, expectPausesBetweenWords, expectSpeech, expectWords, HOSTILE_TEXT, LONG_TEXT, medianF0, SENTENCE, SENTENCE_WORDS,
} from '../tts-engine-kit.js'

/** `edges`: the sentence's first and last samples near zero (the render fades edges anyway). */
export type TtsConformanceCase = 'pauses' | 'rate' | 'pitch' | 'hostile' | 'edges'

export interface TtsConformanceOptions {
  readonly name: string
  readonly create: () => Promise<TtsEngine>
  /** An English voice id of the engine. */
  readonly voice: string
  /** Cases the engine cannot meet, with the reason. */
  readonly skip?: Partial<Record<TtsConformanceCase, string>>
}

const PAUSED = 'Yes. We stopped, and waited. Then, after a while, we went home.'
const PAUSED_WORDS = ['Yes', 'We', 'stopped', 'and', 'waited', 'Then', 'after', 'a', 'while', 'we', 'went', 'home']

export function runTtsEngineConformance(options: TtsConformanceOptions): () => TtsEngine {
  let engine: TtsEngine | undefined
  const get = (): TtsEngine => engine ?? (() => { throw new Error(`${options.name} did not start`) })()
  const voice = options.voice
  const speak = (text: string, extra: object = {}, signal?: AbortSignal) => collect(get(), { text, voice, ...extra }, signal)
  /** A case, or the same case marked skipped with its reason (so every engine's list reads alike). */
  const check = (key: TtsConformanceCase, name: string, fn: () => Promise<void>) => {
    const reason = options.skip?.[key]
    if (reason) it(`${name} — not applicable: ${reason}`, () => {})
    else it(name, fn)
  }
  const stillWorks = async () => expectWords(SENTENCE, await speak(SENTENCE), SENTENCE_WORDS)
  /** The engine has let go of the aborted work: it is not saturated (with one process, it would be). */
  const released = () => expect.poll(() => get().saturated?.() ?? false, { timeout: 120_000, interval: 10 }).toBe(false)

  // File-level hooks: the engine also serves the file's own engine-specific tests.
  beforeAll(async () => {
    engine = await options.create()
  })
  afterAll(() => engine?.close())

  describe(`${options.name}: TTS engine conformance`, () => {
    it('describes itself: a sample rate, voices with unique ids, capabilities', () => {
      const e = get()
      expect(e.sampleRate).toBeGreaterThan(0)
      const ids = e.voices().map((v) => v.id)
      expect(new Set(ids).size).toBe(ids.length)
      expect(ids).toContain(voice)
      expect(e.capabilities.languages.length).toBeGreaterThan(0)
    })

    const edges = options.skip?.edges
    it(`speaks a sentence, with word timings that slice the text${edges ? ` (edges not checked: ${edges})` : ''}`, async () => {
      const c = await speak(SENTENCE)
      expectSpeech(c, 1.5, 6, !edges)
      expectWords(SENTENCE, c, SENTENCE_WORDS)
    })

    check('pauses', 'puts word boundaries at the pauses', async () => {
      const c = await speak(PAUSED)
      expectWords(PAUSED, c, PAUSED_WORDS)
      expect(expectPausesBetweenWords(c, c.sampleRate)).toBeGreaterThanOrEqual(2)
    })

    check('rate', 'speaks twice as fast at rate 2, for that request only', async () => {
      if (!get().capabilities.rate) return
      const normal = await speak(SENTENCE)
      const fast = await speak(SENTENCE, { rate: 2 })
      expect(fast.duration / normal.duration).toBeGreaterThan(0.45)
      expect(fast.duration / normal.duration).toBeLessThan(0.55)
      expectWords(SENTENCE, fast, SENTENCE_WORDS)
      expect(Math.abs((await speak(SENTENCE)).duration - normal.duration)).toBeLessThan(0.05)
    })

    check('pitch', 'shifts pitch natively where it says it can', async () => {
      const v = get().voices().find((x) => x.id === voice)!
      if (!get().capabilities.pitch || v.pitch === false) return
      const normal = await speak(SENTENCE)
      const high = await speak(SENTENCE, { pitchSemitones: 5 })
      const ratio = medianF0(high.samples, high.sampleRate) / medianF0(normal.samples, normal.sampleRate)
      expect(ratio).toBeGreaterThan(1.2)
      expect(ratio).toBeLessThan(1.47)
    })

    it('stops on abort with an AbortError, lets go of its worker and keeps working', async () => {
      const controller = new AbortController()
      const it = get().synthesize({ text: LONG_TEXT.repeat(4), voice }, { signal: controller.signal })[Symbol.asyncIterator]()
      expect((await it.next()).done).toBe(false)
      controller.abort()
      const caught = await (async () => {
        try {
          for (;;) if ((await it.next()).done) return undefined
        } catch (err) {
          return err
        }
      })()
      expect(isAbortError(caught)).toBe(true)
      await released()
      await stillWorks()
    })

    it('stops when the consumer stops reading, and keeps working', async () => {
      for await (const chunk of get().synthesize({ text: LONG_TEXT.repeat(4), voice })) {
        expect(chunk.samples).toBeInstanceOf(Float32Array)
        break
      }
      await released()
      await stillWorks()
    })

    it('rejects an already aborted signal before doing any work', async () => {
      const signal = AbortSignal.abort()
      await expect(speak(SENTENCE, {}, signal)).rejects.toSatisfy(isAbortError)
    })

    check('hostile', 'survives hostile text (quotes, parentheses, code) without injection', async () => {
      const c = await speak(HOSTILE_TEXT)
      expectWords(HOSTILE_TEXT, c)
      expect(c.words.filter((w) => w.text === 'quit').length).toBeGreaterThan(20)
      await stillWorks()
    })

    it('rejects unknown voices with bad_request', async () => {
      await expect(collect(get(), { text: 'hi', voice: 'no-such-voice' })).rejects.toMatchObject({ code: 'bad_request' })
    })
  })
  return get
}
