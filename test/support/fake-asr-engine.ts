/** A fake speech recognizer for plumbing tests: hears "hello world", and is ready when the test says so. */
import type { AsrEngine } from '../../src/engines/asr/types.js'

export interface FakeAsrEngine extends AsrEngine {
  ready(): Promise<void>
  /** Ends the warm-up (`ready()` resolves). */
  finishWarming(): void
}

export function createFakeAsrEngine(): FakeAsrEngine {
  let finish = () => {}
  const ready = new Promise<void>((resolve) => (finish = resolve))
  return {
    id: 'fake-asr',
    capabilities: { languages: ['en'], sampleRate: 16000, maxUtteranceSeconds: 30, parallelism: 1 },
    async transcribe(samples, options) {
      options.signal?.throwIfAborted()
      const sec = samples.length / 16000
      return [
        { word: 'hello', start: 0, end: sec / 2, confidence: 1 },
        { word: 'world', start: sec / 2, end: sec, confidence: 1 },
      ]
    },
    ready: () => ready,
    finishWarming: () => finish(),
    close: async () => {},
  }
}
