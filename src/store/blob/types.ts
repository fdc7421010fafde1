import type { CallOptions } from '../../audio/types.js'

/**
 * Where voice samples, cover images and generated samples live. Keys are `/`-separated paths of
 * `[A-Za-z0-9._-]` segments chosen by Parla, never by users.
 */
export interface BlobStore {
  readonly id: string
  /** Writes atomically: a reader sees the whole value or nothing, even if the process dies mid-write. */
  put(key: string, body: Uint8Array | AsyncIterable<Uint8Array>, options?: CallOptions): Promise<void>
  /** The value, or null when the key does not exist. */
  get(key: string): Promise<Uint8Array | null>
  /** Removes the key; missing keys are not an error. */
  delete(key: string): Promise<void>
  /**
   * Every key under a prefix (used to find orphans after a crash); with `writtenBefore` (ms since the epoch)
   * only keys last written before then, so a sweep leaves writes that may still be under way alone.
   */
  list(prefix: string, options?: ListOptions): Promise<string[]>
  close?(): Promise<void>
}

export interface ListOptions {
  readonly writtenBefore?: number
}

const SEGMENT = /^[A-Za-z0-9._-]+$/

export function assertBlobKey(key: string): void {
  const parts = key.split('/')
  if (parts.some((p) => !SEGMENT.test(p) || p === '.' || p === '..')) throw new Error(`invalid blob key "${key}"`)
}
