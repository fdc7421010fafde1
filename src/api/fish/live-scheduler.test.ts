import { describe, expect, it } from 'vitest'
import { LiveScheduler } from './live-scheduler.js'

const never = new AbortController().signal

describe('LiveScheduler', () => {
  it('grants free slots at once, then serves waiters by earliest deadline, ties in arrival order', async () => {
    const s = new LiveScheduler(2)
    await s.acquire(100, never)
    await s.acquire(100, never)
    const order: string[] = []
    const wait = (name: string, deadline: number) => s.acquire(deadline, never).then(() => order.push(name))
    const all = [wait('late', 500), wait('soon', 10), wait('soon-2', 10), wait('middle', 200)]
    expect(s.queued).toBe(4)
    for (let i = 0; i < 4; i++) {
      s.release()
      await Promise.resolve()
    }
    await Promise.all(all)
    expect(order).toEqual(['soon', 'soon-2', 'middle', 'late'])
  })

  it('a waiter whose signal aborts leaves the queue with the abort reason', async () => {
    const s = new LiveScheduler(1)
    await s.acquire(0, never)
    const abort = new AbortController()
    const gone = s.acquire(5, abort.signal)
    const next = s.acquire(10, never)
    abort.abort(new Error('socket closed'))
    await expect(gone).rejects.toThrow('socket closed')
    expect(s.queued).toBe(1)
    s.release()
    await next
    expect(s.queued).toBe(0)
  })

  it('never grants more than its slots', async () => {
    const s = new LiveScheduler(1)
    await s.acquire(0, never)
    let granted = false
    void s.acquire(0, never).then(() => (granted = true))
    await new Promise((r) => setTimeout(r, 5))
    expect(granted).toBe(false)
    s.release()
    await new Promise((r) => setTimeout(r, 0))
    expect(granted).toBe(true)
  })
})
