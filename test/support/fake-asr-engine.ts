/** A fake speech recognizer for plumbing tests: hears "hello world", and is ready when the test says so. */
import type { AsrEngine } from '../../src/engines/asr/types.js'
import { SpeechError } from '../../src/errors.js'

export interface FakeAsrEngine extends AsrEngine {
  ready(): Promise<void>
  /** Ends the warm-up (`ready()` resolves). */
  finishWarming(): void
}

export function createFakeAsrEngine(): FakeAsrEngine {
  let finish = () => {}
  let closed = false
  const ready = new Promise<void>((resolve) => (finish = resolve))
  return {
    id: 'fake-asr',
    capabilities: { languages: ['en'], sampleRate: 16000, maxUtteranceSeconds: 30, parallelism: 1 },
    async transcribe(samples, options) {
      options.signal?.throwIfAborted()
      if (closed) throw new SpeechError('unavailable', '[fake-asr] the engine is closed')
      if (options.language.split('-')[0] !== 'en') throw new SpeechError('bad_request', `[fake-asr] no language ${options.language}`)
      // A turn of the event loop, as a real engine's worker would take, so an abort can land.
      await new Promise((resolve) => setImmediate(resolve))
      options.signal?.throwIfAborted()
      const sec = samples.length / 16000
      return [
        { word: 'hello', start: 0, end: sec / 2, confidence: 1 },
        { word: 'world', start: sec / 2, end: sec, confidence: 1 },
      ]
    },
    ready: () => ready,
    finishWarming: () => finish(),
    close: async () => void (closed = true),
  }
}
