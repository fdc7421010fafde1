const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`

/**
 * Download progress on stderr: a bar redrawn in place on a terminal; otherwise (a log, a pipe) a line when a
 * file starts and at each quarter, so a non-interactive run still shows it is moving.
 */
export class DownloadProgress {
  private readonly stream: NodeJS.WriteStream
  private name = ''
  private shown = -1
  private open = false

  constructor(stream: NodeJS.WriteStream) {
    this.stream = stream
  }

  readonly start = (name: string, url: string): void => {
    this.finishLine()
    this.name = name
    this.shown = -1
    this.stream.write(`fetching ${name} from ${url}\n`)
  }

  readonly update = (done: number, total: number | undefined): void => {
    const pct = total ? Math.floor((done / total) * 100) : -1
    const label = this.name ? `${this.name} ` : ''
    if (this.stream.isTTY) {
      if (pct === this.shown) return
      this.shown = pct
      this.open = true
      this.stream.write(`\r${label}${total ? `${'#'.repeat(Math.floor(pct / 4)).padEnd(25, '.')} ${pct}% ` : ''}${mb(done)}`)
      return
    }
    const step = total ? Math.floor(pct / 25) * 25 : -1
    if (step <= this.shown || !total) return
    this.shown = step
    this.stream.write(`${label}${step}% (${mb(done)} of ${mb(total)})\n`)
  }

  end(): void {
    this.finishLine()
  }

  private finishLine(): void {
    if (this.open) this.stream.write('\n')
    this.open = false
  }
}
