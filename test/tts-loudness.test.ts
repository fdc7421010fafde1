import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { measureLoudness } from '../src/audio/loudness.js'
import { ConfigError, loadConfig } from '../src/config/load.js'
import { startTestServer, type TestServer } from './helpers/app.js'
import { pcm16 } from './helpers/tts-audio.js'

/**
 * The `loudnessTarget` setting: the integrated loudness `normalize_loudness` brings speech to, measured on
 * what the server sends (BS.1770, as the leveller measures it), against a server on the default.
 */
const RATE = 24_000
const TEXT = 'The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background.'
let standard: TestServer
let broadcast: TestServer

beforeAll(async () => {
  ;[standard, broadcast] = await Promise.all([startTestServer(), startTestServer({ loudnessTarget: -26 })])
})
afterAll(async () => {
  await Promise.all([standard?.close(), broadcast?.close()])
})

async function speak(s: TestServer, body: Record<string, unknown> = {}): Promise<Float32Array> {
  const res = await s.app.inject({ method: 'POST', url: '/v1/tts', headers: s.asAlice, payload: { text: TEXT, format: 'pcm', sample_rate: RATE, ...body } })
  expect(res.statusCode, res.body.slice(0, 300)).toBe(200)
  return pcm16(res.rawPayload)
}

describe('loudnessTarget', () => {
  it('brings speech to the configured loudness instead of -20 LUFS', async () => {
    const [normal, quiet] = await Promise.all([speak(standard), speak(broadcast)])
    // Each sentence is levelled on its own, so the whole answer (pauses gated out) reads within a dB of the
    // target; the gap between the two servers is the setting's, exactly.
    expect(Math.abs(measureLoudness(normal, RATE) + 20)).toBeLessThan(1.5)
    expect(Math.abs(measureLoudness(quiet, RATE) + 26)).toBeLessThan(1.5)
    expect(measureLoudness(quiet, RATE) - measureLoudness(normal, RATE)).toBeCloseTo(-6, 1)
  })

  it('does not touch a request that turns normalization off', async () => {
    const [normal, quiet] = await Promise.all([speak(standard, { prosody: { normalize_loudness: false } }), speak(broadcast, { prosody: { normalize_loudness: false } })])
    expect(Math.abs(measureLoudness(normal, RATE) - measureLoudness(quiet, RATE))).toBeLessThan(0.1)
  })

  it('is refused out of range, naming the setting and its variable', () => {
    expect(() => loadConfig({ env: { PARLA_LOUDNESS_TARGET: '-5' } })).toThrow(ConfigError)
    expect(() => loadConfig({ env: { PARLA_LOUDNESS_TARGET: '-5' } })).toThrow(/loudnessTarget.*PARLA_LOUDNESS_TARGET/)
    expect(loadConfig({ env: { PARLA_LOUDNESS_TARGET: '-23' } }).loudnessTarget).toBe(-23)
  })
})
