import { describe, expect, it } from 'vitest'
import { ResourcePool } from './pool.js'

describe('ResourcePool', () => {
  it('hands out idle items, queues waiters and replaces discarded items', async () => {
    let made = 0
    const destroyed: number[] = []
    const pool = await ResourcePool.start({
      name: 'test',
      size: 1,
      create: async () => ++made,
      destroy: (n: number) => void destroyed.push(n),
    })
    const a = await pool.acquire()
    const waiting = pool.acquire()
    pool.discard(a)
    expect(await waiting).toBe(2)
    expect(destroyed).toEqual([1])
    const controller = new AbortController()
    const aborted = pool.acquire(controller.signal)
    controller.abort()
    await expect(aborted).rejects.toMatchObject({ name: 'AbortError' })
    pool.release(2)
    expect(await pool.acquire()).toBe(2)
    await pool.close()
    await expect(pool.acquire()).rejects.toMatchObject({ code: 'unavailable' })
  })

  it('serves waiters earliest deadline first, in arrival order for equal deadlines', async () => {
    const pool = await ResourcePool.start({ name: 'test', size: 1, create: async () => 1, destroy: () => {} })
    const item = await pool.acquire()
    const order: string[] = []
    const wait = (name: string, deadline?: number) =>
      pool.acquire(undefined, deadline).then((n) => {
        order.push(name)
        pool.release(n)
      })
    const now = performance.now()
    const all = [wait('continuation', now + 5000), wait('first A', now), wait('first B', now), wait('default')]
    pool.release(item)
    await Promise.all(all)
    expect(order).toEqual(['first A', 'first B', 'default', 'continuation'])
    await pool.close()
  })

  it('fails waiters with engine_failed when replacements cannot start', async () => {
    let calls = 0
    const pool = await ResourcePool.start({
      name: 'test',
      size: 1,
      create: async () => {
        if (++calls > 1) throw new Error('gone')
        return calls
      },
      destroy: () => {},
    })
    const item = await pool.acquire()
    const waiting = pool.acquire()
    pool.discard(item)
    await expect(waiting).rejects.toMatchObject({ code: 'engine_failed', message: expect.stringMatching(/^\[test\]/) })
    await pool.close()
  })
})
