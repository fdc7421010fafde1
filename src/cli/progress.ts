/** A one-line progress bar on a terminal stream; silent when the stream is not a terminal. */
export class ProgressBar {
  private readonly stream: NodeJS.WriteStream
  private readonly total: number
  private readonly started = Date.now()
  private last = 0

  constructor(stream: NodeJS.WriteStream, total: number) {
    this.stream = stream
    this.total = Math.max(total, 1e-9)
  }

  update(done: number): void {
    if (!this.stream.isTTY) return
    const now = Date.now()
    if (now - this.last < 100 && done < this.total) return
    this.last = now
    const share = Math.min(1, done / this.total)
    const width = 30
    const filled = Math.round(share * width)
    const elapsed = (now - this.started) / 1000
    this.stream.write(`\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${(share * 100).toFixed(0).padStart(3)}%  ${formatTime(done)} / ${formatTime(this.total)}  ${elapsed.toFixed(1)} s`)
  }

  done(): void {
    if (this.stream.isTTY) this.stream.write('\n')
  }
}

const formatTime = (sec: number) => `${Math.floor(sec / 60)}:${String(Math.floor(sec % 60)).padStart(2, '0')}`
