import { describe, expect, it } from 'vitest'
import { isAbortError, SpeechError } from '../../errors.js'
import { createConcurrencyGate } from './concurrency-gate.js'

/** A task the test finishes by hand, recording when it started. */
function controlled(log: string[], name: string) {
  let finish!: (value: string) => void
  let fail!: (err: Error) => void
  const done = new Promise<string>((resolve, reject) => { finish = resolve; fail = reject })
  return {
    task: () => { log.push(`start ${name}`); return done },
    finish: () => finish(name),
    fail: (err: Error) => fail(err),
  }
}

const turn = () => new Promise((resolve) => setImmediate(resolve))

describe('createConcurrencyGate', () => {
  it('never runs more than the limit at once, and starts waiters first come, first served', async () => {
    const gate = createConcurrencyGate(2)
    const log: string[] = []
    let running = 0
    let most = 0
    const tasks = Array.from({ length: 6 }, (_, i) => controlled(log, String(i)))
    const results = tasks.map((t) => gate.run(async () => {
      running++
      most = Math.max(most, running)
      try {
        return await t.task()
      } finally {
        running--
      }
    }))
    await turn()
    expect(log).toEqual(['start 0', 'start 1'])
    expect([gate.active, gate.waiting]).toEqual([2, 4])
    tasks[1]!.finish()
    await turn()
    expect(log).toEqual(['start 0', 'start 1', 'start 2'])
    for (const t of tasks) t.finish()
    expect(await Promise.all(results)).toEqual(['0', '1', '2', '3', '4', '5'])
    expect(most).toBe(2)
    expect(log).toEqual(['start 0', 'start 1', 'start 2', 'start 3', 'start 4', 'start 5'])
    expect([gate.active, gate.waiting]).toEqual([0, 0])
  })

  it('an aborted waiter leaves the line at once and never runs; the others keep their order', async () => {
    const gate = createConcurrencyGate(1)
    const log: string[] = []
    const first = controlled(log, 'first')
    const second = controlled(log, 'second')
    const third = controlled(log, 'third')
    const leaving = new AbortController()
    const p1 = gate.run(first.task)
    const p2 = gate.run(second.task, leaving.signal)
    const p3 = gate.run(third.task)
    await turn()
    expect(gate.waiting).toBe(2)
    leaving.abort()
    const err = await p2.catch((e: unknown) => e)
    expect(isAbortError(err)).toBe(true)
    expect(gate.waiting).toBe(1)
    first.finish()
    third.finish()
    expect(await Promise.all([p1, p3])).toEqual(['first', 'third'])
    expect(log).toEqual(['start first', 'start third'])
  })

  it('a signal aborted before the call rejects without queueing; a running task is not interrupted', async () => {
    const gate = createConcurrencyGate(1)
    const aborted = AbortSignal.abort()
    let ran = false
    await expect(gate.run(async () => { ran = true }, aborted)).rejects.toSatisfy(isAbortError)
    expect([ran, gate.active, gate.waiting]).toEqual([false, 0, 0])
    // Once a task holds its slot, stopping it is the task's business (it has the signal too).
    const controller = new AbortController()
    const log: string[] = []
    const running = controlled(log, 'running')
    const p = gate.run(running.task, controller.signal)
    await turn()
    controller.abort()
    running.finish()
    expect(await p).toBe('running')
  })

  it('a failing task frees its slot for the next one', async () => {
    const gate = createConcurrencyGate(1)
    const log: string[] = []
    const failing = controlled(log, 'failing')
    const next = controlled(log, 'next')
    const p1 = gate.run(failing.task)
    const p2 = gate.run(next.task)
    failing.fail(new Error('boom'))
    await expect(p1).rejects.toThrow('boom')
    next.finish()
    expect(await p2).toBe('next')
    expect(gate.active).toBe(0)
  })

  it('refuses a limit below one', () => {
    expect(() => createConcurrencyGate(0)).toThrow(SpeechError)
    expect(() => createConcurrencyGate(1.5)).toThrow(/whole number/)
  })
})

describe('createConcurrencyGate with a bounded line', () => {
  it('turns a task away at once when the line is full, and one whose wait runs out, with engine_busy and Retry-After', async () => {
    let rejected = 0
    const gate = createConcurrencyGate(1, { queueLength: 1, waitMs: 50, what: 'the test', onReject: () => rejected++ })
    const log: string[] = []
    const a = controlled(log, 'a')
    const running = gate.run(a.task)
    // Waits in the line; nothing frees the slot, so its wait runs out.
    const waiting = gate.run(controlled(log, 'b').task).catch((e: unknown) => e)
    const full = await gate.run(controlled(log, 'c').task).catch((e: unknown) => e)
    expect(full).toBeInstanceOf(SpeechError)
    expect(full).toMatchObject({ code: 'engine_busy', retryAfterSec: 1 })
    expect((full as SpeechError).message).toMatch(/^The server is at capacity for the test \(1 of 1 running, 1 waiting\); retry in 1 s/)
    const late = await waiting
    expect(late).toMatchObject({ code: 'engine_busy' })
    expect((late as SpeechError).message).toMatch(/no slot within 0.05 s/)
    expect([rejected, gate.active, gate.waiting]).toEqual([2, 1, 0])
    a.finish()
    expect(await running).toBe('a')
    expect(log).toEqual(['start a'])
  })
})
