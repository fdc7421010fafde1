import { assertBlobKey, type BlobStore } from './types.js'

/** In-memory blobs for tests and throwaway servers. */
export function createMemoryBlobStore(): BlobStore {
  const items = new Map<string, Uint8Array>()
  const written = new Map<string, number>()
  return {
    id: 'memory',
    async put(key, body, options) {
      assertBlobKey(key)
      if (body instanceof Uint8Array) {
        items.set(key, new Uint8Array(body)) // a copy, even of a Buffer (whose slice is a view)
        written.set(key, Date.now())
        return
      }
      const parts: Uint8Array[] = []
      for await (const chunk of body) {
        options?.signal?.throwIfAborted()
        parts.push(chunk)
      }
      items.set(key, Buffer.concat(parts))
      written.set(key, Date.now())
    },
    async get(key) {
      assertBlobKey(key)
      const value = items.get(key)
      return value ? new Uint8Array(value) : null
    },
    async delete(key) {
      assertBlobKey(key)
      items.delete(key)
      written.delete(key)
    },
    async list(prefix, options) {
      const before = options?.writtenBefore ?? Infinity
      return [...items.keys()].filter((k) => k.startsWith(prefix) && written.get(k)! < before)
    },
  }
}
