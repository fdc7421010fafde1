import { createWriteStream, type WriteStream } from 'node:fs'
import { rename, rm } from 'node:fs/promises'
import { once } from 'node:events'
import { CliError, EXIT } from './exit.js'

/**
 * Where audio goes: a file written under a temporary name and renamed when complete (a failure half-way leaves
 * no half file), or stdout for pipes, written as it arrives.
 */
export class AudioOutput {
  private readonly path: string | undefined
  private readonly tmp: string | undefined
  private readonly stream: WriteStream | NodeJS.WriteStream

  constructor(path: string | undefined) {
    this.path = path
    if (path) {
      this.tmp = `${path}.partial-${process.pid}`
      this.stream = createWriteStream(this.tmp)
    } else {
      this.stream = process.stdout
      // The reader of a pipe went away (`| head -c …`): nothing more to do; leaving stops the server's work too.
      process.stdout.on('error', (err: NodeJS.ErrnoException) => {
        if (err.code === 'EPIPE') process.exit(0)
        throw err
      })
    }
  }

  async write(bytes: Uint8Array): Promise<void> {
    if (bytes.length === 0) return
    if (!this.stream.write(bytes)) await once(this.stream, 'drain')
  }

  async commit(): Promise<void> {
    if (!this.tmp || !this.path) return
    const stream = this.stream as WriteStream
    stream.end()
    await once(stream, 'close')
    await rename(this.tmp, this.path).catch((err: NodeJS.ErrnoException) => {
      throw new CliError(EXIT.usage, `cannot write ${this.path} (${err.code ?? err.message})`)
    })
  }

  async discard(): Promise<void> {
    if (!this.tmp) return
    ;(this.stream as WriteStream).destroy()
    await rm(this.tmp, { force: true })
  }
}
