/**
 * Text arriving token by token over the live socket is spoken in natural units: everything up to the last
 * sentence end, or, when no sentence ends within `maxChars`, up to the last word boundary before it.
 */
const SENTENCE_END = /[.!?。！？…]+["')\]”’]*(\s+|$)/g

export class TextBuffer {
  private text = ''
  private readonly maxChars: number

  constructor(maxChars: number) {
    this.maxChars = maxChars
  }

  get length(): number {
    return this.text.length
  }

  append(text: string): void {
    this.text += text
  }

  /** Removes and returns the complete units buffered so far, or '' when none is ready yet. */
  takeReady(): string {
    let cut = 0
    for (const match of this.text.matchAll(SENTENCE_END)) {
      // A sentence end at the very end of the buffer may still grow ("3." → "3.5"), unless followed by space.
      const end = match.index + match[0].length
      if (end === this.text.length && match[1] === '') continue
      cut = end
    }
    if (cut === 0 && this.text.length >= this.maxChars) {
      const space = this.text.lastIndexOf(' ', this.maxChars)
      cut = space > 0 ? space + 1 : this.text.length
    }
    return this.take(cut)
  }

  /** Removes and returns everything buffered. */
  takeAll(): string {
    return this.take(this.text.length)
  }

  private take(n: number): string {
    const out = this.text.slice(0, n)
    this.text = this.text.slice(n)
    return out.trim() === '' ? '' : out
  }
}
