import { withConnection, type ConnectionOptions } from './connection.js'
import { StatusLine } from './status-line.js'
import { fileBlob } from './voice-files.js'

interface Transcript {
  text: string
  duration: number
  segments: { text: string; start: number; end: number }[]
}

/** `parla transcribe FILE --server URL`: one `/v1/asr` request to a remote Parla. */
export async function transcribeRemote(file: string, options: ConnectionOptions & { json?: boolean; language?: string }): Promise<void> {
  await withConnection(options, async (client) => {
    const { blob, name } = await fileBlob(file)
    const form = new FormData()
    form.append('audio', blob, name)
    form.append('ignore_timestamps', 'false')
    if (options.language) form.append('language', options.language)
    const status = new StatusLine(process.stderr)
    // The server answers once the whole file is transcribed; on a terminal the line shows it is still working.
    const timer = process.stderr.isTTY ? setInterval(() => status.update(`transcribing ${name} on ${client.base}`), 200) : undefined
    try {
      const result = await client.json<Transcript>('/v1/asr', { method: 'POST', body: form })
      if (timer) status.done(`transcribed ${result.duration.toFixed(1)} s`)
      process.stdout.write(`${options.json ? JSON.stringify(result, null, 2) : result.text}\n`)
    } finally {
      clearInterval(timer)
    }
  })
}
