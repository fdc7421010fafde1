/**
 * Progress of something without a known length (training): on a terminal one line redrawn with a spinner and the
 * elapsed time; otherwise a plain line each time the status changes, for logs and scripts.
 */
export class StatusLine {
  private readonly stream: NodeJS.WriteStream
  private readonly started = Date.now()
  private last = ''
  private frame = 0

  constructor(stream: NodeJS.WriteStream) {
    this.stream = stream
  }

  update(status: string): void {
    if (!this.stream.isTTY) {
      if (status !== this.last) this.stream.write(`${status}\n`)
      this.last = status
      return
    }
    const spinner = '|/-\\'[this.frame++ % 4]
    const elapsed = ((Date.now() - this.started) / 1000).toFixed(1)
    this.stream.write(`\r\x1b[2K${spinner} ${status}  ${elapsed} s`)
    this.last = status
  }

  done(final: string): void {
    this.stream.write(this.stream.isTTY ? `\r\x1b[2K${final}\n` : `${final}\n`)
  }
}
