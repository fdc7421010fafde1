// Plays 16-bit little-endian mono PCM as it arrives, through Web Audio: each piece is scheduled right after the
// previous one, so playback starts with the first bytes instead of after the download.

interface Scheduled {
  /** AudioContext time the piece starts playing. */
  readonly at: number
  /** Where the piece starts in the speech, seconds. */
  readonly offset: number
  readonly duration: number
}

/** Seconds scheduled ahead of "now" for the first piece, so a slow next piece does not open a gap at once. */
const LEAD_SEC = 0.08

export class PcmPlayer {
  readonly rate: number
  private readonly ctx: AudioContext
  private readonly scheduled: Scheduled[] = []
  private readonly sources: AudioBufferSourceNode[] = []
  private carry: number | null = null
  private next = 0
  /** Every sample received, as 16-bit, for the waveform and the download. */
  readonly pieces: Int16Array<ArrayBuffer>[] = []
  samples = 0

  constructor(ctx: AudioContext, rate: number) {
    this.ctx = ctx
    this.rate = rate
  }

  push(bytes: Uint8Array): Int16Array<ArrayBuffer> {
    // A piece can end in the middle of a sample; its first byte waits for the next piece.
    let data = bytes
    if (this.carry !== null) {
      data = new Uint8Array(bytes.length + 1)
      data[0] = this.carry
      data.set(bytes, 1)
      this.carry = null
    }
    if (data.length % 2 === 1) {
      this.carry = data[data.length - 1]!
      data = data.subarray(0, data.length - 1)
    }
    const count = data.length / 2
    if (count === 0) return new Int16Array(0)
    const view = new DataView(data.buffer, data.byteOffset, data.length)
    const ints = new Int16Array(count)
    const floats = new Float32Array(count)
    for (let i = 0; i < count; i++) {
      ints[i] = view.getInt16(i * 2, true)
      floats[i] = ints[i]! / 32768
    }
    const buffer = this.ctx.createBuffer(1, count, this.rate)
    buffer.copyToChannel(floats, 0)
    const source = this.ctx.createBufferSource()
    source.buffer = buffer
    source.connect(this.ctx.destination)
    const at = Math.max(this.next, this.ctx.currentTime + LEAD_SEC)
    source.start(at)
    this.sources.push(source)
    this.scheduled.push({ at, offset: this.samples / this.rate, duration: count / this.rate })
    this.next = at + count / this.rate
    this.pieces.push(ints)
    this.samples += count
    return ints
  }

  /** Seconds of the speech heard so far (a gap while waiting for data holds the position). */
  position(): number {
    const now = this.ctx.currentTime
    for (let i = this.scheduled.length - 1; i >= 0; i--) {
      const s = this.scheduled[i]!
      if (s.at <= now) return s.offset + Math.min(now - s.at, s.duration)
    }
    return 0
  }

  get duration(): number {
    return this.samples / this.rate
  }

  /** True once everything scheduled has played. */
  finished(): boolean {
    return this.scheduled.length > 0 && this.ctx.currentTime >= this.next
  }

  stop(): void {
    for (const s of this.sources) {
      try {
        s.stop()
      } catch {
        // not started yet
      }
    }
    this.sources.length = 0
  }
}
