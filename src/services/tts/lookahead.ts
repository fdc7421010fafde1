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

  /** Starts the call for chunk `seq` now, unless one is already ahead. */
  prefetch(seq: number, start: () => Pieces): void {
    if (this.#ahead) return
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
    const ahead = this.#ahead
    this.#ahead = undefined
    ahead?.it.return?.(undefined).catch(() => {})
  }
}
