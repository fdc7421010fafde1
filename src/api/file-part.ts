import type { MultipartFile } from '@fastify/multipart'

/**
 * The bytes of a request's only file part, read into one resizable `ArrayBuffer` that grows in place as
 * chunks arrive (pages are committed as they are written) and ends exactly the file's size. `part.toBuffer()`
 * keeps the chunks and then concatenates them, which holds an upload twice for a moment (40 MB for a 20 MB
 * ASR file); a buffer sized from Content-Length avoids that but ends as a view with slack, which the decoder
 * worker must copy instead of taking over. A file over the parser's size limit (`truncated`) throws the
 * parser's own error, so callers map it as before.
 */
export async function readOnlyFilePart(part: MultipartFile, maxBytes: number): Promise<Uint8Array> {
  const buffer = new ArrayBuffer(0, { maxByteLength: maxBytes })
  for await (const chunk of part.file as AsyncIterable<Buffer>) {
    const at = buffer.byteLength
    if (part.file.truncated || at + chunk.length > maxBytes) throw fileTooLarge(part)
    buffer.resize(at + chunk.length)
    new Uint8Array(buffer, at, chunk.length).set(chunk)
  }
  if (part.file.truncated) throw fileTooLarge(part)
  return new Uint8Array(buffer, 0, buffer.byteLength)
}

function fileTooLarge(part: MultipartFile): Error {
  return Object.assign(new Error('request file too large'), { code: 'FST_REQ_FILE_TOO_LARGE', part })
}
