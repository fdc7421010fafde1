import { describe, expect, it } from 'vitest'
import type { SynthesisChunk } from '../../engines/tts/types.js'
import { Lookahead, readAhead } from './lookahead.js'

/** A fake engine call that records when it starts working and whether it was stopped. */
function call(name: string, log: string[], pieces = 2) {
  return async function* (): AsyncGenerator<SynthesisChunk> {
    log.push(`${name} start`)
    try {
      for (let i = 0; i < pieces; i++) yield { samples: new Float32Array(1), words: [], ...(i === pieces - 1 && { final: true }) }
    } finally {
      log.push(`${name} end`)
    }
  }
}

const drain = async (pieces: AsyncIterable<SynthesisChunk>) => {
  let n = 0
  for await (const _ of pieces) n++
  return n
}

describe('Lookahead', () => {
  it('starts the next call when asked and hands it over with its first piece', async () => {
    const log: string[] = []
    const ahead = new Lookahead()
    ahead.prefetch(1, call('b', log))
    expect(log).toEqual(['b start'])
    // Only one call ahead at a time.
    ahead.prefetch(2, call('c', log))
    expect(await drain(ahead.take(1, call('unused', log)))).toBe(2)
    expect(log).toEqual(['b start', 'b end'])
    // A chunk nobody prefetched starts on demand.
    expect(await drain(ahead.take(2, call('c', log)))).toBe(2)
    expect(log).toEqual(['b start', 'b end', 'c start', 'c end'])
  })

  it('stops a prefetched call nobody took', async () => {
    const log: string[] = []
    const ahead = new Lookahead()
    ahead.prefetch(1, call('b', log))
    await new Promise((r) => setTimeout(r, 0))
    ahead.close()
    await new Promise((r) => setTimeout(r, 0))
    expect(log).toEqual(['b start', 'b end'])
  })

  it('stops the handed-over call when the consumer stops early', async () => {
    const log: string[] = []
    const ahead = new Lookahead()
    ahead.prefetch(1, call('b', log, 5))
    for await (const _ of ahead.take(1, call('unused', log))) break
    expect(log).toEqual(['b start', 'b end'])
  })

  it('ignores a prefetch after close', async () => {
    const log: string[] = []
    const ahead = new Lookahead()
    ahead.close()
    ahead.prefetch(1, call('b', log))
    expect(log).toEqual([])
  })
})

describe('readAhead', () => {
  it('reports the last audio while the consumer still holds the piece before it', async () => {
    const finals: number[] = []
    const it = readAhead(call('a', [], 3)(), 1, (sec) => finals.push(sec))[Symbol.asyncIterator]()
    expect((await it.next()).done).toBe(false)
    expect((await it.next()).done).toBe(false)
    // The consumer has two pieces; the third (final) was already read, and announced with 3 samples received.
    await new Promise((r) => setTimeout(r, 0))
    expect(finals).toEqual([3])
    expect((await it.next()).value.final).toBe(true)
    expect((await it.next()).done).toBe(true)
    expect(finals).toEqual([3])
  })

  it('announces nothing and closes the call when the consumer stops first', async () => {
    const log: string[] = []
    const finals: number[] = []
    let open = () => {}
    const gate = new Promise<void>((r) => (open = r))
    async function* slow(): AsyncGenerator<SynthesisChunk> {
      try {
        yield { samples: new Float32Array(1), words: [] }
        await gate
        yield { samples: new Float32Array(1), words: [], final: true }
      } finally {
        log.push('end')
      }
    }
    for await (const _ of readAhead(slow(), 1, (sec) => finals.push(sec))) break
    open()
    await expect.poll(() => log).toEqual(['end'])
    expect(finals).toEqual([])
  })
})
