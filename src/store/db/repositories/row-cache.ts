import type { ChangeFeed } from '../changes.js'

export interface RowCache<T> {
  /** The cached value, or runs `load` and caches what it finds (not a miss). */
  get(id: string, load: () => Promise<T | undefined>): Promise<T | undefined>
  /** Drops the entry here and, through the change feed, on every other node. */
  invalidate(id: string): Promise<void>
}

/**
 * Rows read by id on every request (`GET /model/{id}`, each synthesis naming a model), kept for `ttlMs` on
 * nodes that share a PostgreSQL, where a read is a network round trip. Writes announce the id on the change
 * feed (LISTEN/NOTIFY), so other nodes drop it within milliseconds; the TTL bounds a missed notification. A
 * read that overlapped any invalidation is not cached, so a slow read cannot put back what a write replaced.
 * Values are frozen: a caller changing a shared cached object would corrupt every later answer.
 */
export function createRowCache<T extends object>(changes: ChangeFeed, topic: string, ttlMs = 5_000, limit = 10_000): RowCache<T> {
  const entries = new Map<string, { value: T; until: number }>()
  let epoch = 0
  const drop = (id: string) => {
    epoch++
    entries.delete(id)
  }
  changes.subscribe(topic, drop)
  return {
    async get(id, load) {
      const hit = entries.get(id)
      if (hit && hit.until > Date.now()) return hit.value
      const started = epoch
      const value = await load()
      if (value !== undefined && started === epoch) {
        if (entries.size >= limit) entries.delete(entries.keys().next().value!)
        entries.set(id, { value: deepFreeze(value), until: Date.now() + ttlMs })
      }
      return value
    },
    async invalidate(id) {
      drop(id)
      await changes.publish(topic, id)
    },
  }
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const v of Object.values(value)) deepFreeze(v)
  }
  return value
}
