import type { SynthesisChunk } from '../../engines/tts/types.js'

type Pieces = AsyncIterable<SynthesisChunk>

/**
 * The engine call for the next text chunk, started as soon as the current call has handed over its last
 * piece: the engine then works on the next chunk while the current one is levelled, encoded and sent, as
 * it does between sentences within one call. Only one call is ever started ahead, so a request still
 * keeps one engine process busy at a time.
 */
export class Lookahead {
  #ahead?: { readonly seq: number; readonly it: AsyncIterator<SynthesisChunk>; first?: Promise<IteratorResult<SynthesisChunk>> }
  #closed = false

  /** Starts the call for chunk `seq` now, unless one is already ahead or the response has ended. */
  prefetch(seq: number, start: () => Pieces): void {
    if (this.#ahead || this.#closed) return
    const it = start()[Symbol.asyncIterator]()
    const first = it.next()
    first.catch(() => {}) // reported when taken
    this.#ahead = { seq, it, first }
  }

  /** The pieces of chunk `seq`: the call started ahead for it, or a new one. */
  take(seq: number, start: () => Pieces): Pieces {
    const ahead = this.#ahead
    if (!ahead || ahead.seq !== seq) return start()
    this.#ahead = undefined
    return {
      [Symbol.asyncIterator]: () => ({
        next: () => {
          const first = ahead.first
          ahead.first = undefined
          return first ?? ahead.it.next()
        },
        return: async (value?: unknown) => (await ahead.it.return?.(value)) ?? { done: true, value: undefined },
      }),
    }
  }

  /** Stops a call started ahead that nobody took (the response ended or failed first). */
  close(): void {
    this.#closed = true
    const ahead = this.#ahead
    this.#ahead = undefined
    ahead?.it.return?.(undefined).catch(() => {})
  }
}

/**
 * The pieces of one call, read one ahead of the consumer: while a piece is levelled, encoded and sent, the
 * engine's next one is already awaited, so `onFinal` runs as soon as the engine has produced its last audio
 * (with the engine seconds received so far) and the next call can start on an engine that would otherwise
 * wait for the consumer. Stopping early closes the call without waiting for the piece in flight.
 */
export async function* readAhead(pieces: Pieces, rate: number, onFinal: (receivedSec: number) => void): AsyncGenerator<SynthesisChunk> {
  const it = pieces[Symbol.asyncIterator]()
  let received = 0
  let stopped = false
  const pull = () => {
    const next = it.next()
    next.then((r) => {
      if (r.done || stopped) return
      received += r.value.samples.length
      if (r.value.final) onFinal(received / rate)
    }, () => {})
    return next
  }
  let pending: Promise<IteratorResult<SynthesisChunk>> | undefined = pull()
  try {
    for (;;) {
      const result = await pending
      pending = undefined
      if (result.done) return
      pending = pull()
      yield result.value
    }
  } finally {
    stopped = true
    if (pending) {
      // An async generator's return() waits behind the next() in flight: leave it to settle on its own.
      pending.catch(() => {})
      void it.return?.(undefined)?.catch(() => {})
    }
  }
}
