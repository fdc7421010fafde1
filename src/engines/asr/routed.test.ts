import { describe, expect, it } from 'vitest'
import { createRoutedAsrEngine } from './routed.js'
import type { AsrEngine } from './types.js'

/** An engine that only counts: the routing is what is under test. */
const counting = (id: string, languages: string[], withReady: boolean) => {
  const calls = { ready: 0 }
  const engine: AsrEngine = {
    id,
    capabilities: { languages, sampleRate: 16_000, maxUtteranceSeconds: 30, parallelism: 1 },
    transcribe: () => Promise.resolve([]),
    close: () => Promise.resolve(),
    ...(withReady && { ready: async () => { calls.ready++ } }),
  }
  return { engine, calls }
}

describe('routed speech recognition', () => {
  it('makes each of its engines ready once, however many languages route to it', async () => {
    const de = counting('de', ['de'], true)
    const star = counting('star', ['en', 'fr'], true)
    const plain = counting('plain', ['it'], false)
    const routed = createRoutedAsrEngine([
      { language: 'de', engine: de.engine },
      { language: 'at', engine: de.engine },
      { language: 'it', engine: plain.engine },
      { language: '*', engine: star.engine },
    ])
    await routed.ready!()
    expect([de.calls.ready, star.calls.ready]).toEqual([1, 1])
  })
})
