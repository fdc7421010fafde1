import { afterEach, describe, expect, it, vi } from 'vitest'
import { isAbortError } from '../errors.js'
import { type Turn, waitInLine } from './waiting-line.js'

afterEach(() => vi.useRealTimers())

/** A place in `line` with a second wait; `room` says whether the owner serves it when a wait runs out. */
function join(line: Turn[], room: () => boolean, signal?: AbortSignal) {
  const calls = { overdue: 0, timedOut: 0, asked: 0 }
  const place = waitInLine(line, () => 'taken', {
    waitMs: 500,
    graceMs: 300,
    ...(signal && { signal }),
    servedAtDeadline: () => {
      calls.asked++
      return room()
    },
    overdue: () => void calls.overdue++,
    timedOut: () => {
      calls.timedOut++
      return new Error('no place')
    },
  })
  return { place: place.then((v) => v, (e: unknown) => e), calls }
}

describe('waitInLine with a second wait', () => {
  it('keeps its place past the first deadline, and its owner can still serve it then', async () => {
    vi.useFakeTimers()
    const line: Turn[] = []
    const { place, calls } = join(line, () => false)
    await vi.advanceTimersByTimeAsync(500)
    expect(calls).toEqual({ overdue: 1, timedOut: 0, asked: 1 })
    expect(line).toHaveLength(1)
    line[0]!()
    expect(await place).toBe('taken')
    expect(line).toHaveLength(0)
    await vi.advanceTimersByTimeAsync(1000)
    expect(calls).toEqual({ overdue: 1, timedOut: 0, asked: 1 })
  })

  it('asks once more when the second wait ends: served if there is room, else turned away', async () => {
    vi.useFakeTimers()
    const line: Turn[] = []
    let room = false
    const served = join(line, () => room)
    const refused = join(line, () => false)
    await vi.advanceTimersByTimeAsync(799)
    expect(line).toHaveLength(2)
    room = true
    await vi.advanceTimersByTimeAsync(1)
    expect(await served.place).toBe('taken')
    expect(served.calls).toEqual({ overdue: 1, timedOut: 0, asked: 2 })
    expect(await refused.place).toMatchObject({ message: 'no place' })
    expect(refused.calls).toEqual({ overdue: 1, timedOut: 1, asked: 2 })
    expect(line).toHaveLength(0)
  })

  it('leaves the line at once when its client goes away during the second wait', async () => {
    vi.useFakeTimers()
    const line: Turn[] = []
    const gone = new AbortController()
    const { place, calls } = join(line, () => false, gone.signal)
    await vi.advanceTimersByTimeAsync(600)
    gone.abort()
    expect(isAbortError(await place)).toBe(true)
    expect(line).toHaveLength(0)
    await vi.advanceTimersByTimeAsync(1000)
    expect(calls).toEqual({ overdue: 1, timedOut: 0, asked: 1 })
  })
})
