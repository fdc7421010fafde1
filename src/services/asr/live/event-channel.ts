/** A queue read as an AsyncIterable: one producer pushes, one consumer iterates until `end()`. */
export class EventChannel<T> {
  readonly #items: T[] = []
  #wake: (() => void) | undefined
  #ended = false

  push(item: T): void {
    if (this.#ended) return
    this.#items.push(item)
    this.#wake?.()
  }

  end(): void {
    this.#ended = true
    this.#wake?.()
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T> {
    for (;;) {
      const item = this.#items.shift()
      if (item !== undefined) {
        yield item
        continue
      }
      if (this.#ended) return
      await new Promise<void>((resolve) => (this.#wake = resolve))
      this.#wake = undefined
    }
  }
}
