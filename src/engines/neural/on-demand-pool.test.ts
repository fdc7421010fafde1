import { describe, expect, it } from 'vitest'
import { OnDemandPool } from './on-demand-pool.js'

/** The pool's start-on-demand and idle-stop plumbing, with plain objects for the processes it would run. */
interface Fake { readonly n: number; stopped: boolean }

function fakePool(idleSec: number, options: { failStarts?: number } = {}) {
  let made = 0
  let failures = options.failStarts ?? 0
  const stops: number[] = []
  let idleStopped!: () => void
  let nextIdleStop = new Promise<void>((r) => (idleStopped = r))
  const pool = new OnDemandPool<Fake>({
    name: 'fake',
    size: 2,
    idleSec,
    create: async () => {
      if (failures > 0) {
        failures--
        throw new Error('the runtime would not start')
      }
      return { n: ++made, stopped: false }
    },
    destroy: (item) => void (item.stopped = true),
    onIdleStop: (count) => {
      stops.push(count)
      idleStopped()
      nextIdleStop = new Promise<void>((r) => (idleStopped = r))
    },
  })
  return { pool, stops, made: () => made, idleStop: () => nextIdleStop }
}

const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise((r) => setTimeout(r, 1))
}

describe('OnDemandPool', () => {
  it('starts nothing until the first call, then the whole pool', async () => {
    const { pool, made } = fakePool(0)
    await turns(3)
    expect(made()).toBe(0)
    expect(pool.load.size).toBe(0)
    const item = await pool.acquire()
    expect(made()).toBe(2)
    expect(pool.load).toMatchObject({ size: 2, busy: 1 })
    pool.release(item)
    await pool.close()
    expect(item.stopped).toBe(true)
  })

  it('stops every process after idleSec without work, and starts new ones for the next call', async () => {
    const { pool, stops, made, idleStop } = fakePool(0.02)
    const first = await pool.acquire()
    const stopped = idleStop()
    pool.release(first)
    await stopped
    expect(stops).toEqual([2])
    expect(first.stopped).toBe(true)
    expect(pool.load.size).toBe(0)
    const again = await pool.acquire()
    expect(again.n).toBeGreaterThan(2)
    expect(made()).toBe(4)
    pool.release(again)
    await pool.close()
  })

  it('never stops while a call holds a process or waits for one, however long it takes', async () => {
    const { pool, stops } = fakePool(0.01)
    const a = await pool.acquire()
    const b = await pool.acquire()
    const waiting = pool.acquire()
    // Many idle periods pass while both are held and a third call waits.
    await turns(20)
    expect(stops).toEqual([])
    pool.release(a)
    const c = await waiting
    await turns(20)
    expect(stops).toEqual([])
    expect([a, b, c].some((item) => item.stopped)).toBe(false)
    pool.release(b)
    pool.release(c)
    await pool.close()
  })

  it('a process of the stopped pool that reports back later (released again, or dead) leaves the new pool whole', async () => {
    const { pool, idleStop } = fakePool(0.02)
    const a = await pool.acquire()
    const b = await pool.acquire()
    pool.release(a)
    pool.discard(b)
    await idleStop()
    const fresh = await pool.acquire()
    pool.release(a)
    pool.discard(b)
    expect(pool.load).toMatchObject({ size: 2, busy: 1 })
    expect(fresh.stopped).toBe(false)
    pool.release(fresh)
    await pool.close()
  })

  it('with idleSec 0 keeps its processes', async () => {
    const { pool, stops } = fakePool(0)
    pool.release(await pool.acquire())
    await turns(20)
    expect(stops).toEqual([])
    expect(pool.load.size).toBe(2)
    await pool.close()
  })

  it('once closed, a call is refused and starts nothing', async () => {
    const { pool, made } = fakePool(0)
    pool.release(await pool.acquire())
    await pool.close()
    await expect(pool.acquire()).rejects.toThrow(/\[fake\] the engine is closed/)
    expect(made()).toBe(2)
  })

  it('a pool that could not start is tried again by the next call', async () => {
    const { pool } = fakePool(0, { failStarts: 1 })
    await expect(pool.acquire()).rejects.toThrow(/would not start/)
    const item = await pool.acquire()
    expect(item.stopped).toBe(false)
    pool.release(item)
    await pool.close()
  })

  it('recycle: new calls get new processes; the old ones stop when the calls holding them are done', async () => {
    const { pool } = fakePool(0)
    const held = await pool.acquire()
    const idle = await pool.acquire()
    pool.release(idle)
    pool.recycle()
    const fresh = await pool.acquire()
    expect(fresh.n).toBeGreaterThan(2)
    expect(held.stopped).toBe(false)
    pool.release(held)
    expect(held.stopped).toBe(true)
    expect(idle.stopped).toBe(true)
    expect(fresh.stopped).toBe(false)
    expect(pool.load).toMatchObject({ size: 2, busy: 1 })
    pool.release(fresh)
    await pool.close()
    expect(fresh.stopped).toBe(true)
  })

  it('recycle while the pool is starting: the waiting call is served by a new pool, the stale one is stopped', async () => {
    let made = 0
    const all: Fake[] = []
    let letFirstStart!: () => void
    const firstStart = new Promise<void>((r) => (letFirstStart = r))
    const pool = new OnDemandPool<Fake>({
      name: 'fake', size: 1, idleSec: 0,
      create: async () => {
        const n = ++made
        if (n === 1) await firstStart
        const item = { n, stopped: false }
        all.push(item)
        return item
      },
      destroy: (item) => void (item.stopped = true),
    })
    const waiting = pool.acquire()
    await turns(2)
    pool.recycle()
    letFirstStart()
    const item = await waiting
    expect(item.n).toBe(2)
    await turns(2)
    expect(all.find((x) => x.n === 1)?.stopped).toBe(true)
    pool.release(item)
    await pool.close()
  })

  it('keeps counting busy seconds across restarts', async () => {
    const { pool, idleStop } = fakePool(0.02)
    const item = await pool.acquire()
    await turns(5)
    const stopped = idleStop()
    pool.release(item)
    const held = pool.load.busySec
    expect(held).toBeGreaterThan(0)
    await stopped
    expect(pool.load.busySec).toBe(held)
    await pool.close()
  })
})
