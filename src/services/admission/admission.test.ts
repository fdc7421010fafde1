import { describe, expect, it } from 'vitest'
import { SpeechError } from '../../errors.js'
import { createAdmission, type AdmissionOptions } from './admission.js'
import { admissionLimits } from './limits.js'

const gate = (over: Partial<AdmissionOptions> = {}) => {
  const rejected: string[] = []
  const admission = createAdmission({
    limits: () => ({ streams: 2, starting: 2 }),
    queueLength: 1,
    waitMs: 60_000,
    onReject: (surface) => void rejected.push(surface),
    ...over,
  })
  return { admission, rejected }
}

describe('admission', () => {
  it('admits up to the limit, lines up one more, turns the next away with a 503 that says when to retry', async () => {
    const { admission, rejected } = gate()
    const a = await admission.admit('tts')
    await admission.admit('live')
    const waiting = admission.admit('sse')
    const refused = await admission.admit('wyoming').catch((e: unknown) => e)
    expect(refused).toBeInstanceOf(SpeechError)
    expect(refused).toMatchObject({ code: 'engine_busy', status: 503 })
    expect((refused as SpeechError).retryAfterSec).toBeGreaterThanOrEqual(1)
    expect((refused as SpeechError).message).toMatch(/at capacity \(2 of 2 streams/)
    expect(rejected).toEqual(['wyoming'])
    expect(admission.snapshot()).toMatchObject({ running: { tts: 1, live: 1, sse: 0 }, queued: 1 })
    a.release()
    a.release() // idempotent: frees one place only
    await waiting
    expect(admission.snapshot()).toMatchObject({ running: { tts: 0, live: 1, sse: 1 }, queued: 0 })
  })

  it('turns a waiting stream away when its wait runs out', async () => {
    const { admission, rejected } = gate({ waitMs: 0, limits: () => ({ streams: 1, starting: 1 }) })
    await admission.admit('tts')
    await expect(admission.admit('openai')).rejects.toMatchObject({ code: 'engine_busy', retryAfterSec: 1 })
    expect(rejected).toEqual(['openai'])
    expect(admission.snapshot().queued).toBe(0)
  })

  it('lets a waiting stream leave the line when its client goes away', async () => {
    const { admission } = gate({ limits: () => ({ streams: 1, starting: 1 }) })
    const held = await admission.admit('tts')
    const gone = new AbortController()
    const waiting = admission.admit('tts', gone.signal)
    gone.abort(new DOMException('client left', 'AbortError'))
    await expect(waiting).rejects.toMatchObject({ name: 'AbortError' })
    held.release()
    expect(admission.snapshot()).toMatchObject({ running: { tts: 0 }, queued: 0 })
  })

  it('limits streams starting at once: the next starts when one has sent its first audio', async () => {
    const firsts: string[] = []
    const { admission } = gate({ limits: () => ({ streams: 5, starting: 1 }), onFirstAudio: (s) => void firsts.push(s) })
    const a = await admission.admit('live')
    const b = admission.admit('live')
    expect(admission.snapshot()).toMatchObject({ starting: 1, queued: 1 })
    a.firstAudio()
    await b
    expect(admission.snapshot()).toMatchObject({ running: { live: 2 }, starting: 1, queued: 0 })
    expect(firsts).toEqual(['live'])
  })
})

describe('admission limits', () => {
  it('follow the cores and the cost of a second of speech; a setting replaces the automatic figure', () => {
    const auto = { maxStreams: 0, maxStartingStreams: 0, cores: 2 }
    expect(admissionLimits(auto, 0.025)).toEqual({ streams: 40, starting: 20 })
    // A dearer engine (or a busy machine) admits fewer.
    expect(admissionLimits(auto, 0.1)).toEqual({ streams: 10, starting: 5 })
    expect(admissionLimits(auto, 5)).toEqual({ streams: 1, starting: 1 })
    expect(admissionLimits({ ...auto, maxStreams: 3 }, 0.025)).toEqual({ streams: 3, starting: 3 })
    expect(admissionLimits({ ...auto, maxStartingStreams: 2 }, undefined)).toEqual({ streams: 20, starting: 2 })
  })
})

describe('overload share', () => {
  it('cuts the automatic limits when a stream falls behind (once a second at most), and regains them slowly', async () => {
    const { createOverloadShare } = await import('./overload.js')
    let now = 0
    const overload = createOverloadShare(() => now)
    expect(overload.share()).toBe(1)
    overload.fellBehind()
    overload.fellBehind() // the same second: one cut
    expect(overload.share()).toBeCloseTo(0.75)
    now += 1000
    overload.fellBehind()
    expect(overload.share()).toBeCloseTo(0.75 * 0.75 + 0.02 * 0.75, 2)
    const auto = { maxStreams: 0, maxStartingStreams: 0, cores: 2 }
    expect(admissionLimits(auto, 0.025, 0.5)).toEqual({ streams: 20, starting: 10 })
    // A fixed setting is the operator's: never scaled.
    expect(admissionLimits({ ...auto, maxStreams: 8 }, 0.025, 0.5)).toMatchObject({ streams: 8 })
    now += 60_000
    expect(overload.share()).toBe(1)
  })
})
