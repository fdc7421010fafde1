import { randomBytes } from 'node:crypto'
import type { Logger } from '../../logger.js'
import type { QuotaRepository } from '../../store/db/repositories/quota.js'

/**
 * This node's concurrency leases. Each is a row with an expiry `leaseMs` ahead; one timer renews every lease
 * the node holds every third of that, so a node that dies stops renewing and its slots free themselves.
 */
export interface LeaseKeeper {
  /** Writes a new lease for the account (not yet held: the caller may drop it) and returns its id. */
  add(accountId: string, keyId: string): Promise<string>
  /** Leases of the account alive at `now` on every node, less the ones this node is releasing. */
  count(accountId: string): Promise<number>
  /** Keeps the lease renewed until released. */
  hold(id: string): void
  /** Stops counting the lease at once, then deletes it. */
  release(id: string, accountId: string): Promise<void>
  close(): Promise<void>
}

export function createLeaseKeeper(repo: QuotaRepository, logger: Logger, leaseMs: number, now: () => number): LeaseKeeper {
  const held = new Set<string>()
  /** Leases whose row is being deleted, id → account: they no longer count here, even before the delete lands. */
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
    async add(accountId, keyId) {
      const id = randomBytes(12).toString('hex')
      await repo.addLease(id, accountId, keyId, now() + leaseMs)
      return id
    },
    async count(accountId) {
      // Counted before the releasing ones are looked at: a lease whose delete lands in between is counted and
      // not subtracted (a refusal at worst), never the other way round.
      const live = await repo.liveLeases(accountId, now())
      let leaving = 0
      for (const account of releasing.values()) if (account === accountId) leaving++
      return live - leaving
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
