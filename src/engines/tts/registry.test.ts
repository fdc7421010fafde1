import { describe, expect, it } from 'vitest'
import { loadTtsEngineFactory, ttsEngineIds } from './registry.js'

describe('TTS engine registry', () => {
  it('lists the engines and loads their factories lazily', async () => {
    expect(ttsEngineIds()).toEqual(['festival', 'flite', 'espeak-ng', 'neural', 'upstream'])
    for (const id of ttsEngineIds()) expect(typeof (await loadTtsEngineFactory(id))).toBe('function')
  })

  it('rejects unknown ids, including inherited property names', async () => {
    await expect(loadTtsEngineFactory('piper')).rejects.toMatchObject({ code: 'not_found' })
    await expect(loadTtsEngineFactory('toString')).rejects.toMatchObject({ code: 'not_found' })
  })
})
