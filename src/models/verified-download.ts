import { createHash } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import { basename } from 'node:path'
import { pipeline } from 'node:stream/promises'
import { SpeechError } from '../errors.js'
import type { CatalogFile } from './catalog-types.js'
import { download, type DownloadOptions } from './download.js'

/** How many times a download cut off part-way is resumed within one command before giving up. */
const RESUMES = 3

/**
 * Downloads one catalog file into `part`, resuming a cut connection (HTTP Range) as long as each attempt brings
 * more bytes, then checks it against what the publisher says: size, then MD5 or SHA-256. Throws a `bad_request`
 * naming the file on a mismatch; the caller discards the download then.
 */
export async function downloadVerified(file: CatalogFile, url: string, part: string, options: DownloadOptions = {}): Promise<void> {
  let got: number
  for (let attempt = 0; ; attempt++) {
    const before = await sizeOf(part)
    try {
      got = await download(url, part, options)
      break
    } catch (err) {
      if (options.signal?.aborted || !(err instanceof SpeechError) || attempt >= RESUMES || (await sizeOf(part)) <= before) throw err
    }
  }
  const name = decodeURIComponent(basename(new URL(url).pathname))
  if (file.size !== undefined && got !== file.size) {
    throw new SpeechError('bad_request', `${name}: size mismatch: the publisher lists ${file.size} bytes, ${url} sent ${got}`)
  }
  for (const algorithm of ['sha256', 'md5'] as const) {
    const expected = file[algorithm]
    if (!expected) continue
    const actual = await digest(part, algorithm)
    if (actual !== expected.toLowerCase()) throw new SpeechError('bad_request', `${name}: checksum mismatch: ${algorithm} ${actual}, the publisher lists ${expected}`)
  }
}

const sizeOf = (path: string) => stat(path).then((s) => s.size, () => 0)

async function digest(path: string, algorithm: 'sha256' | 'md5'): Promise<string> {
  const hash = createHash(algorithm)
  await pipeline(createReadStream(path), hash)
  return hash.digest('hex')
}
