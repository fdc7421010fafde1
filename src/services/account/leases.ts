import { randomBytes } from 'node:crypto'
import type { Logger } from '../../logger.js'
import type { QuotaQueries } from '../../store/db/repositories/quota.js'

/**
 * This node's concurrency leases. Each is a row with an expiry `leaseMs` ahead; one timer renews every lease
 * the node holds every third of that (and sweeps rows nothing counts any more), so a node that dies stops
 * renewing and its slots free themselves.
 */
export interface LeaseKeeper {
  readonly leaseMs: number
  newId(): string
  /** Leases of the account this node is releasing: still in the database for a moment, no longer counted. */
  leaving(accountId: string): number
  /** Keeps the lease renewed until released. */
  hold(id: string): void
  /** Stops counting the lease at once, then deletes it. */
  release(id: string, accountId: string): Promise<void>
  close(): Promise<void>
}

export function createLeaseKeeper(repo: QuotaQueries, logger: Logger, leaseMs: number, now: () => number): LeaseKeeper {
  const held = new Set<string>()
  const releasing = new Map<string, string>()
  let timer: NodeJS.Timeout | undefined

  const stop = () => {
    clearInterval(timer)
    timer = undefined
  }
  const renew = async () => {
    try {
      const at = now()
      await repo.renewLeases([...held], at + leaseMs)
      await repo.sweep(at, Math.floor(at / 60_000) - 1)
    } catch (err) {
      logger.warn({ err }, '[quota] renewing leases failed; retrying at the next interval')
    }
    if (held.size === 0) stop()
  }

  return {
    leaseMs,
    newId: () => randomBytes(12).toString('hex'),
    leaving(accountId) {
      let n = 0
      for (const account of releasing.values()) if (account === accountId) n++
      return n
    },
    hold(id) {
      held.add(id)
      timer ??= setInterval(() => void renew(), Math.max(10, leaseMs / 3)).unref()
    },
    async release(id, accountId) {
      held.delete(id)
      releasing.set(id, accountId)
      try {
        await repo.dropLease(id)
      } finally {
        releasing.delete(id)
      }
    },
    async close() {
      stop()
      const ids = [...held]
      held.clear()
      for (const id of ids) await repo.dropLease(id).catch(() => {})
    },
  }
}
