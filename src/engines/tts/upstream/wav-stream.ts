import { SpeechError } from '../../../errors.js'

/**
 * Reads a streamed 16-bit mono WAV (fish-speech's `streaming: true` response: a header whose sizes are 0 or
 * unknown, then PCM as it is made) into float pieces as bytes arrive. The sample rate is known once the
 * header has passed.
 */
export class WavStreamReader {
  #head = new Uint8Array(0)
  #inData = false
  #odd: number | undefined
  sampleRate = 0

  push(bytes: Uint8Array): Float32Array {
    if (!this.#inData) {
      this.#head = concat(this.#head, bytes)
      const start = this.#parseHeader()
      if (start < 0) return new Float32Array(0)
      bytes = this.#head.subarray(start)
      this.#inData = true
    }
    return this.#samples(bytes)
  }

  /** Offset of the PCM after the `data` chunk header, or -1 until it has arrived. */
  #parseHeader(): number {
    const b = this.#head
    const view = new DataView(b.buffer, b.byteOffset, b.byteLength)
    const tag = (at: number) => String.fromCharCode(...b.subarray(at, at + 4))
    if (b.length < 12) return -1
    if (tag(0) !== 'RIFF' || tag(8) !== 'WAVE') throw new SpeechError('engine_failed', '[upstream] the upstream answered with something that is not a WAV stream')
    let at = 12
    while (at + 8 <= b.length) {
      const id = tag(at)
      const size = view.getUint32(at + 4, true)
      if (id === 'data') {
        if (!this.sampleRate) throw new SpeechError('engine_failed', '[upstream] WAV stream has no format chunk before its data')
        return at + 8
      }
      if (at + 8 + size > b.length) return -1
      if (id === 'fmt ') {
        const format = view.getUint16(at + 8, true)
        const channels = view.getUint16(at + 10, true)
        const bits = view.getUint16(at + 22, true)
        if (format !== 1 || channels !== 1 || bits !== 16) throw new SpeechError('engine_failed', `[upstream] unexpected WAV format ${format}/${channels}ch/${bits}bit; expected 16-bit mono PCM`)
        this.sampleRate = view.getUint32(at + 12, true)
      }
      at += 8 + size + (size & 1)
    }
    return -1
  }

  #samples(bytes: Uint8Array): Float32Array {
    let src = bytes
    if (this.#odd !== undefined) src = concat(Uint8Array.of(this.#odd), bytes)
    const count = src.length >> 1
    this.#odd = src.length & 1 ? src[src.length - 1] : undefined
    const view = new DataView(src.buffer, src.byteOffset, count * 2)
    const out = new Float32Array(count)
    for (let i = 0; i < count; i++) out[i] = view.getInt16(2 * i, true) / 32768
    return out
  }
}

const concat = (a: Uint8Array, b: Uint8Array) => {
  const out = new Uint8Array(a.length + b.length)
  out.set(a)
  out.set(b, a.length)
  return out
}
