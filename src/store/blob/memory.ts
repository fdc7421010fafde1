import { assertBlobKey, type BlobStore } from './types.js'

/** In-memory blobs for tests and throwaway servers. */
export function createMemoryBlobStore(): BlobStore {
  const items = new Map<string, Uint8Array>()
  return {
    id: 'memory',
    async put(key, body, options) {
      assertBlobKey(key)
      if (body instanceof Uint8Array) {
        items.set(key, body.slice())
        return
      }
      const parts: Uint8Array[] = []
      for await (const chunk of body) {
        options?.signal?.throwIfAborted()
        parts.push(chunk)
      }
      items.set(key, Buffer.concat(parts))
    },
    async get(key) {
      assertBlobKey(key)
      return items.get(key)?.slice() ?? null
    },
    async delete(key) {
      items.delete(key)
    },
    async list(prefix) {
      return [...items.keys()].filter((k) => k.startsWith(prefix))
    },
  }
}
