import { describe, expect, it } from 'vitest'
import { AHEAD_MARGIN_MS, FirstAudioPriority } from './first-audio.js'

const later = (ms: number) => performance.now() + ms

describe('FirstAudioPriority', () => {
  it('lets a stream go on at once when nobody waits for first audio', () => {
    const p = new FirstAudioPriority()
    expect(p.defer(later(5000))).toBeUndefined()
  })

  it('pauses a stream until the last waiting stream has its first audio', async () => {
    const p = new FirstAudioPriority()
    const a = p.begin(performance.now())
    const b = p.begin(performance.now())
    expect(p.waiting).toBe(2)
    let resumed = false
    void p.defer(later(5000))!.then(() => (resumed = true))
    a.done()
    a.done() // twice counts once
    await new Promise((r) => setTimeout(r, 10))
    expect(resumed).toBe(false)
    b.done()
    await new Promise((r) => setTimeout(r, 0))
    expect(resumed).toBe(true)
    expect(p.waiting).toBe(0)
  })

  it('never pauses a stream past the moment its listener needs more audio', async () => {
    const p = new FirstAudioPriority()
    p.begin(performance.now()) // never gets its audio
    expect(p.defer(later(-1))).toBeUndefined()
    const t0 = performance.now()
    await p.defer(later(40))
    expect(performance.now() - t0).toBeGreaterThanOrEqual(35)
    expect(performance.now() - t0).toBeLessThan(1000)
  })

  it('resumes a paused stream when it is aborted', async () => {
    const p = new FirstAudioPriority()
    p.begin(performance.now())
    const controller = new AbortController()
    const t0 = performance.now()
    const paused = p.defer(later(10_000), controller.signal)!
    setTimeout(() => controller.abort(), 10)
    await paused
    expect(performance.now() - t0).toBeLessThan(1000)
  })

  it('does not count a stream whose listener still has audio to play', () => {
    const p = new FirstAudioPriority()
    p.begin(later(AHEAD_MARGIN_MS + 2000))
    expect(p.waiting).toBe(0)
    expect(p.defer(later(5000))).toBeUndefined()
  })
})
