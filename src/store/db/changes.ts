import { EventEmitter } from 'node:events'
import pg from 'pg'

/**
 * Tells every node that something it may cache changed (a key revoked). On PostgreSQL through LISTEN/NOTIFY on
 * one channel, so a change on one node reaches the others in milliseconds; on SQLite (one node) in-process.
 */
export interface ChangeFeed {
  publish(topic: string, id: string): Promise<void>
  /** Calls `listener` with the id of each change of `topic`, from this node or any other. */
  subscribe(topic: string, listener: (id: string) => void): void
  close(): Promise<void>
}

const CHANNEL = 'parla_changes'

export function createLocalChangeFeed(): ChangeFeed {
  const events = new EventEmitter()
  return {
    async publish(topic, id) {
      events.emit(topic, id)
    },
    subscribe: (topic, listener) => void events.on(topic, listener),
    async close() {
      events.removeAllListeners()
    },
  }
}

/**
 * One dedicated connection LISTENs (pooled connections cannot: LISTEN belongs to a session). A lost connection
 * is reopened after a second; changes sent meanwhile are missed, which only delays them to the caches' own
 * expiry (the key cache keeps entries a few seconds).
 */
export async function createPostgresChangeFeed(url: string, onError: (err: Error) => void): Promise<ChangeFeed> {
  const events = new EventEmitter()
  let client: pg.Client | undefined
  let closed = false
  let retry: NodeJS.Timeout | undefined
  const reconnect = () => {
    if (!closed) retry = setTimeout(() => connect().catch((err: Error) => (onError(err), reconnect())), 1000)
  }
  const connect = async () => {
    const c = new pg.Client({ connectionString: url })
    c.on('notification', (n) => {
      const [topic, id] = (n.payload ?? '').split(/:(.*)/s)
      if (topic && id !== undefined) events.emit(topic, id)
    })
    c.on('error', (err) => {
      onError(err)
      client = undefined
      void c.end().catch(() => {})
      reconnect()
    })
    await c.connect()
    await c.query(`listen ${CHANNEL}`)
    client = c
  }
  await connect()
  return {
    async publish(topic, id) {
      const c = client
      if (!c) return
      await c.query('select pg_notify($1, $2)', [CHANNEL, `${topic}:${id}`])
    },
    subscribe: (topic, listener) => void events.on(topic, listener),
    async close() {
      closed = true
      clearTimeout(retry)
      events.removeAllListeners()
      await client?.end().catch(() => {})
    },
  }
}
