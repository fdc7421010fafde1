import type { MultipartFile } from '@fastify/multipart'

/**
 * Request bytes (a body, a file part) read into one resizable `ArrayBuffer` that grows in place as chunks
 * arrive (pages are committed as they are written) and ends exactly their size. Collecting the chunks and
 * then concatenating them (Fastify's buffer parser, `part.toBuffer()`) holds an upload twice for a moment:
 * 40 MB for a 20 MB ASR file. A buffer sized from Content-Length avoids that but ends as a view with slack,
 * which the audio decoder's worker must copy instead of taking over. `check` runs before each chunk and at
 * the end, and throws to stop reading.
 */
export async function collectBytes(
  chunks: AsyncIterable<Uint8Array>, maxBytes: number, tooLarge: () => Error, check: () => void = () => {},
): Promise<Uint8Array> {
  const buffer = new ArrayBuffer(0, { maxByteLength: maxBytes })
  for await (const chunk of chunks) {
    check()
    const at = buffer.byteLength
    if (at + chunk.length > maxBytes) throw tooLarge()
    buffer.resize(at + chunk.length)
    new Uint8Array(buffer, at, chunk.length).set(chunk)
  }
  check()
  return new Uint8Array(buffer, 0, buffer.byteLength)
}

/**
 * The bytes of a request's only file part. Requests with several files keep `toBuffer()`. A file over the
 * parser's size limit (`truncated`) throws the parser's own error, so callers map it as before.
 */
export function readOnlyFilePart(part: MultipartFile, maxBytes: number): Promise<Uint8Array> {
  const tooLarge = () => Object.assign(new Error('request file too large'), { code: 'FST_REQ_FILE_TOO_LARGE', part })
  const check = () => {
    if (part.file.truncated) throw tooLarge()
  }
  return collectBytes(part.file as AsyncIterable<Buffer>, maxBytes, tooLarge, check)
}
