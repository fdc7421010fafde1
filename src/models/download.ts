import { createHash } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { open, stat } from 'node:fs/promises'
import { pipeline } from 'node:stream/promises'
import { SpeechError } from '../errors.js'

export interface DownloadOptions {
  /** Called as bytes arrive: bytes on disk so far, and the total when the server says it. */
  readonly onProgress?: (done: number, total: number | undefined) => void
  readonly signal?: AbortSignal
}

/**
 * Downloads `url` into `partFile`, resuming from what a previous attempt left there (HTTP Range). A server
 * that ignores the range sends the whole file again, which then replaces the partial one. Returns the size.
 */
export async function download(url: string, partFile: string, options: DownloadOptions = {}): Promise<number> {
  const have = await stat(partFile).then((s) => s.size, () => 0)
  const res = await fetch(url, { headers: have > 0 ? { range: `bytes=${have}-` } : {}, ...(options.signal && { signal: options.signal }) })
    .catch((err: unknown) => {
      if (options.signal?.aborted) throw err
      throw new SpeechError('engine_failed', `could not reach ${url}: ${err instanceof Error ? (err.cause as Error | undefined)?.message ?? err.message : String(err)}`)
    })
  if (res.status === 416 && have > 0) {
    // Nothing left to fetch: the part file is already complete.
    await res.body?.cancel()
    return have
  }
  if (!res.ok || !res.body) throw new SpeechError('engine_failed', `download of ${url} failed: HTTP ${res.status} ${res.statusText}`)
  const resumed = res.status === 206
  const length = Number(res.headers.get('content-length') ?? NaN)
  const total = Number.isFinite(length) ? length + (resumed ? have : 0) : undefined
  let done = resumed ? have : 0
  options.onProgress?.(done, total)
  // Each piece is on disk before the next is read, so whatever arrived before a cut is kept for the resume.
  const file = await open(partFile, resumed ? 'a' : 'w')
  try {
    for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
      await file.write(chunk)
      done += chunk.length
      options.onProgress?.(done, total)
    }
  } catch (err) {
    if (options.signal?.aborted) throw err
    throw new SpeechError('engine_failed', `download of ${url} was cut off after ${done} bytes (${err instanceof Error ? err.message : String(err)}); run the command again to resume`)
  } finally {
    await file.close()
  }
  if (total !== undefined && done !== total) throw new SpeechError('engine_failed', `download of ${url} ended early (${done} of ${total} bytes); run the command again to resume`)
  return done
}

/** SHA-256 of a file, lower-case hex. */
export async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256')
  await pipeline(createReadStream(path), hash)
  return hash.digest('hex')
}
