import { afterEach, describe, expect, it, vi } from 'vitest'
import { SpeechError } from '../../errors.js'
import { createAdmission, type AdmissionOptions, type AdmissionTicket } from './admission.js'
import { admissionLimits, shortWorkLimits } from './limits.js'

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

describe('admission by expected work', () => {
  afterEach(() => vi.useRealTimers())
  // 1 ms of engine work per character: 'Hi.' is 3 ms of work, a 2,000-character text 2 s.
  const byWork = (over: Partial<AdmissionOptions> = {}) => gate({
    limits: () => ({ streams: 1, starting: 1 }), queueLength: 4, waitMs: 500, secPerChar: () => 0.001, ...over,
  })

  it('gives a freed place to the least work waiting, then in order of arrival', async () => {
    const { admission } = byWork({ waitMs: 60_000 })
    const holder = await admission.admit('tts')
    const order: string[] = []
    const tickets = new Map<string, AdmissionTicket>()
    const waits: [string, number][] = [['long', 2000], ['short', 20], ['middle', 300], ['short too', 20]]
    for (const [name, chars] of waits) {
      void admission.admit('tts', undefined, { chars }).then((t) => {
        order.push(name)
        tickets.set(name, t)
      })
    }
    // Each admitted stream ends in turn, freeing the one place for the next.
    let freed: AdmissionTicket = holder
    for (let i = 0; i < waits.length; i++) {
      freed.release()
      await new Promise((resolve) => setImmediate(resolve))
      expect(order).toHaveLength(i + 1)
      freed = tickets.get(order.at(-1)!)!
    }
    expect(order).toEqual(['short', 'short too', 'middle', 'long'])
  })

  it('serves work shorter than its wait beyond the limits rather than refusing it, within the short-work budget', async () => {
    const { admission, rejected } = byWork({ queueLength: 0, shortWorkSec: () => 0.01 })
    await admission.admit('tts')
    // 'Hi.' (3 ms of work) on a full node with a full line: served at once, not after the wait.
    const hi = await admission.admit('tts', undefined, { chars: 3 })
    await admission.admit('sse', undefined, { chars: 5 })
    expect(admission.snapshot()).toMatchObject({ running: { tts: 2, sse: 1 }, queued: 0 })
    expect(admission.snapshot().shortWorkSec).toBeCloseTo(0.008)
    // Longer than the wait (2 s of work): refused as before, with Retry-After.
    await expect(admission.admit('tts', undefined, { chars: 2000 })).rejects.toMatchObject({ code: 'engine_busy' })
    expect(rejected).toEqual(['tts'])
    // The budget is spent (8 of 10 ms): the next short one lines up (at the front) instead…
    const third = admission.admit('tts', undefined, { chars: 3 })
    expect(admission.snapshot().queued).toBe(1)
    // …and takes the budget 'Hi.' gives back when it ends, although no place within the limits has freed, and
    // although a live unit with less work stands before it in the line (that one waits for a place).
    const live = admission.admit('live', undefined, { chars: 1, waitMs: 60_000 })
    hi.release()
    await third
    live.catch(() => {})
    expect(admission.snapshot()).toMatchObject({ running: { tts: 2, sse: 1, live: 0 }, queued: 1 })
    expect(admission.snapshot().shortWorkSec).toBeCloseTo(0.008)
  })

  it('always lets one short stream beyond the limits, however far the budget is cut', async () => {
    const { admission } = byWork({ queueLength: 0, shortWorkSec: () => 0 })
    await admission.admit('tts')
    const hi = await admission.admit('tts', undefined, { chars: 3 })
    // A second one waits for the first to end, then goes.
    const yes = admission.admit('tts', undefined, { chars: 4 })
    expect(admission.snapshot()).toMatchObject({ running: { tts: 2 }, queued: 1 })
    hi.release()
    await yes
    expect(admission.snapshot()).toMatchObject({ running: { tts: 2 }, queued: 0 })
  })

  it('serves a short stream whose wait ran out beyond the limits, rather than refusing it, while within the cap', async () => {
    vi.useFakeTimers()
    // No budget beyond the one short stream always let through; a cap of 10 ms of short work.
    const { admission, rejected } = byWork({ queueLength: 0, shortWorkSec: () => 0, shortWorkCapSec: () => 0.01 })
    await admission.admit('tts')
    await admission.admit('tts', undefined, { chars: 3 })
    let served = false
    const second = admission.admit('sse', undefined, { chars: 4 }).then((t) => {
      served = true
      return t
    })
    await vi.advanceTimersByTimeAsync(499)
    expect(served).toBe(false)
    // Its 4 ms of work is less than the 500 ms it has waited: served now, 3 + 4 ms beyond the limits.
    await vi.advanceTimersByTimeAsync(1)
    await second
    expect(rejected).toEqual([])
    expect(admission.snapshot()).toMatchObject({ running: { tts: 2, sse: 1 }, queued: 0 })
    expect(admission.snapshot().shortWorkSec).toBeCloseTo(0.007)
  })

  it('refuses a short stream when short work beyond the limits stays at the cap through a second wait', async () => {
    vi.useFakeTimers()
    const { admission, rejected } = byWork({ queueLength: 0, shortWorkSec: () => 0, shortWorkCapSec: () => 0.008 })
    await admission.admit('tts')
    const hi = await admission.admit('tts', undefined, { chars: 3 })
    const within = admission.admit('tts', undefined, { chars: 4 })
    let settled = false
    const over = admission.admit('openai', undefined, { chars: 3 }).catch((e: unknown) => e).finally(() => void (settled = true))
    await vi.advanceTimersByTimeAsync(500)
    await within
    // 3 + 4 ms are running beyond the limits: 3 more would pass the 8 ms cap, so it waits once more.
    expect(settled).toBe(false)
    expect(admission.snapshot()).toMatchObject({ queued: 1 })
    await vi.advanceTimersByTimeAsync(499)
    expect(settled).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    const refusal = await over
    expect(refusal).toMatchObject({ code: 'engine_busy', retryAfterSec: 1, message: expect.stringMatching(/no place within 1 s, short work at its cap/) as unknown })
    expect(rejected).toEqual(['openai'])
    // Short work that ends gives its share of the cap back.
    hi.release()
    const next = admission.admit('tts', undefined, { chars: 4 })
    await vi.advanceTimersByTimeAsync(500)
    await next
    expect(admission.snapshot().shortWorkSec).toBeCloseTo(0.008)
  })

  it('serves a short stream in its second wait as soon as short work beyond the limits makes room under the cap', async () => {
    vi.useFakeTimers()
    // The budget is only the one short stream always let through; the cap 8 ms.
    const { admission, rejected } = byWork({ queueLength: 0, shortWorkSec: () => 0, shortWorkCapSec: () => 0.008 })
    await admission.admit('tts')
    const hi = await admission.admit('tts', undefined, { chars: 3 })
    const yes = admission.admit('tts', undefined, { chars: 4 })
    let served = false
    const sure = admission.admit('sse', undefined, { chars: 4 }).then((t) => {
      served = true
      return t
    })
    await vi.advanceTimersByTimeAsync(500)
    await yes
    // 3 + 4 ms beyond the limits; 4 more would pass the cap: it waits on.
    expect(served).toBe(false)
    await vi.advanceTimersByTimeAsync(200)
    expect(served).toBe(false)
    // 'Hi.' ends: 4 + 4 ms fit the cap (not the budget), and the stream in its second wait takes the room.
    hi.release()
    await vi.advanceTimersByTimeAsync(0)
    expect(served).toBe(true)
    await sure
    expect(rejected).toEqual([])
    expect(admission.snapshot()).toMatchObject({ running: { tts: 2, sse: 1 }, queued: 0 })
    expect(admission.snapshot().shortWorkSec).toBeCloseTo(0.008)
  })

  it('counts only short work beyond the limits against the cap, not the streams within them', async () => {
    vi.useFakeTimers()
    const { admission, rejected } = byWork({
      limits: () => ({ streams: 2, starting: 2 }), queueLength: 0, shortWorkSec: () => 0, shortWorkCapSec: () => 0.005,
    })
    // Two replies of 0.4 s of work each fill the limits: their 0.8 s is far above the 5 ms cap.
    await admission.admit('tts', undefined, { chars: 400 })
    await admission.admit('sse', undefined, { chars: 400 })
    await admission.admit('tts', undefined, { chars: 3 })
    const second = admission.admit('tts', undefined, { chars: 2 }).then(() => 'served', (e: unknown) => e)
    await vi.advanceTimersByTimeAsync(500)
    expect(await second).toBe('served')
    expect(rejected).toEqual([])
    expect(admission.snapshot()).toMatchObject({ running: { tts: 3, sse: 1 } })
    expect(admission.snapshot().shortWorkSec).toBeCloseTo(0.005)
  })

  it('gives a place freed within the limits to the line while short work still runs beyond them', async () => {
    const { admission } = byWork({ queueLength: 0, shortWorkSec: () => 0.01 })
    const holder = await admission.admit('tts', undefined, { chars: 400 })
    await admission.admit('tts', undefined, { chars: 3 })
    const live = admission.admit('live', undefined, { chars: 40, waitMs: 2000 })
    expect(admission.snapshot()).toMatchObject({ running: { tts: 2, live: 0 }, queued: 1 })
    // The one place within the limits frees: the live unit takes it although 'Hi.' still runs beyond them.
    holder.release()
    await live
    expect(admission.snapshot()).toMatchObject({ running: { tts: 1, live: 1 }, queued: 0, starting: 1 })
    // A refusal says how many streams run within the limits, and how many short ones beyond.
    await admission.admit('tts', undefined, { chars: 5 })
    const refused = await admission.admit('sse', undefined, { chars: 2000 }).catch((e: unknown) => e)
    expect(refused).toMatchObject({ message: expect.stringMatching(/1 of 1 streams speaking and 2 short ones beyond/) as unknown })
  })

  it('counts no work as short above 1 s, however long the wait, and lets a live utterance wait rather than jump the limits', async () => {
    const { admission } = byWork({ waitMs: 60_000, queueLength: 0, shortWorkSec: () => 100 })
    await admission.admit('tts')
    // 1.5 s of work under a 60 s wait: not short (else a long wait would void the limits), and the line is full.
    await expect(admission.admit('tts', undefined, { chars: 1500 })).rejects.toMatchObject({ code: 'engine_busy' })
    // A live unit of 3 ms of work waits in line for its budget: its socket keeps the place for the whole reply.
    const live = admission.admit('live', undefined, { chars: 3, waitMs: 2000 })
    expect(admission.snapshot()).toMatchObject({ running: { live: 0 }, queued: 1 })
    live.catch(() => {})
  })

  it('lets a live utterance wait for its latency budget, longer than the node wait, even when the line is full', async () => {
    vi.useFakeTimers()
    const { admission, rejected } = byWork({ queueLength: 0 })
    const holder = await admission.admit('tts')
    let admitted = false
    const live = admission.admit('live', undefined, { chars: 2000, waitMs: 2000 }).then((t) => {
      admitted = true
      return t
    })
    await vi.advanceTimersByTimeAsync(1500)
    expect(admitted).toBe(false)
    expect(rejected).toEqual([])
    holder.release()
    await live
    expect(admission.snapshot().running.live).toBe(1)
    // Past its budget it is refused like any stream.
    const late = admission.admit('live', undefined, { chars: 2000, waitMs: 2000 })
    const outcome = late.catch((e: unknown) => e)
    await vi.advanceTimersByTimeAsync(2000)
    expect(await outcome).toMatchObject({ code: 'engine_busy', message: expect.stringMatching(/no place within 2 s/) as unknown })
  })
})

describe('short work beyond the limits', () => {
  it('has a budget of the cores\' work in one wait (at most 1 s each), cut by the share, and a cap of 1 s per core of the machine', () => {
    expect(shortWorkLimits(2, 2, 0.5)).toEqual({ budgetSec: 1, capSec: 2 })
    expect(shortWorkLimits(2, 2, 30)).toEqual({ budgetSec: 2, capSec: 2 })
    // Streams behind or recognizers busy cut the budget; the cap bounds a flood, not the pace, and stays.
    expect(shortWorkLimits(2, 2, 0.5, 0.5)).toEqual({ budgetSec: 0.5, capSec: 2 })
    expect(shortWorkLimits(0.5, 2, 0.5, 0.1)).toEqual({ budgetSec: 0.025, capSec: 2 })
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
