import { SpeechError } from '../../errors.js'
import type { Logger } from '../../logger.js'
import type { Principal } from '../../principal.js'
import type { KeyUsageRow, QuotaRepository, UsageTotals } from '../../store/db/repositories/quota.js'
import { createLeaseKeeper } from './leases.js'
import { admitInTurn, needsTurn, QuotaExceeded, type AdmissionStep } from './admission.js'
import { effectiveLimits, monthOf, ownLimits, toStoredChanges, type LimitChanges, type LimitName, type QuotaLimits } from './limits.js'

/** What a request needs from its account's monthly budgets, known before it runs. */
export interface QuotaNeed {
  /** TTS characters the request will speak (checked and counted at admission). */
  readonly characters?: number
  /** The request transcribes audio: refused once the monthly audio seconds are used up. */
  readonly transcribes?: boolean
}

/** One admitted request or live socket. Release it exactly when it ends (any number of calls is fine). */
export interface QuotaTicket {
  /** Counts more characters (a live socket's text as it is spoken); throws the 429 when over the limit. */
  charge(characters: number): Promise<void>
  /** Counts audio: ASR input (`audioSeconds`) and TTS output (`speechSeconds`, written on release). */
  record(usage: { audioSeconds?: number; speechSeconds?: number }): Promise<void>
  release(): Promise<void>
}

/** A request refused by quota (for counters such as the metrics' quota rejections). */
export interface QuotaRejection {
  readonly limit: LimitName
  readonly accountId: string
  readonly keyId: string
}

export interface QuotaService {
  /** Admits a request, or throws `rate_limited` (429, `retryAfterSec`) leaving no counter changed. */
  admit(principal: Principal, need?: QuotaNeed): Promise<QuotaTicket>
  limits(accountId: string): Promise<{ limits: QuotaLimits; own: LimitName[] }>
  setLimits(accountId: string, changes: LimitChanges): Promise<void>
  /** The account's usage in a month (default: this one). */
  usage(accountId: string, month?: string): Promise<UsageTotals & { month: string }>
  /** Every key's usage per month, newest first (`parla keys usage`). */
  keyUsageRows(month?: string): Promise<KeyUsageRow[]>
  /** Calls `listener` on every rejection; returns the function that stops it. */
  onRejected(listener: (r: QuotaRejection) => void): () => void
  /** Stops renewing leases and deletes this node's. */
  close(): Promise<void>
}

export interface QuotaOptions {
  readonly repo: QuotaRepository
  /** Limits of accounts that set none of their own. */
  readonly defaults: QuotaLimits
  readonly logger: Logger
  /** A lease lives this long unless renewed (every third of it): a dead node's slots free within it. */
  readonly leaseMs?: number
  /** Milliseconds since the epoch; tests move it to play a node whose leases lapsed. */
  readonly now?: () => number
}

const DEFAULT_LEASE_MS = 30_000

export function createQuotaService(options: QuotaOptions): QuotaService {
  const { repo, defaults, logger } = options
  const now = options.now ?? Date.now
  const listeners = new Set<(r: QuotaRejection) => void>()
  const leases = createLeaseKeeper(repo, logger, options.leaseMs ?? DEFAULT_LEASE_MS, now)
  /** The last minute whose older windows were swept (the lease timer sweeps too, but only while leases are held). */
  let sweptMinute = 0

  const refuse = (principal: Principal, e: QuotaExceeded): SpeechError => {
    for (const listener of listeners) {
      try {
        listener({ limit: e.limit, accountId: principal.accountId, keyId: principal.keyId })
      } catch (err) {
        logger.warn({ err }, '[quota] a rejection listener failed')
      }
    }
    logger.info({ accountId: principal.accountId, keyId: principal.keyId, limit: e.limit }, `[quota] refused: ${e.limit}`)
    return new SpeechError('rate_limited', e.message, { retryAfterSec: e.retryAfterSec })
  }

  /** One admission step, in the account's turn when a limit it touches is set. */
  async function step(principal: Principal, limits: QuotaLimits, request: boolean, need: QuotaNeed): Promise<string | undefined> {
    const at = now()
    const minute = Math.floor(at / 60_000)
    if (minute > sweptMinute) {
      sweptMinute = minute
      void repo.sweep(at, minute - 1).catch((err) => logger.warn({ err }, '[quota] sweeping old counts failed'))
    }
    const s: AdmissionStep = { principal, limits, at, request, characters: need.characters ?? 0, transcribes: need.transcribes ?? false }
    if (!needsTurn(s)) {
      // Nothing to check, only to count: the count is written on the next turn, while the work starts, so
      // the database's round trip is not on the way to the first audio. A failed write loses this count
      // (logged); it never refuses a request no limit applies to.
      setImmediate(() => {
        repo.addUsage(principal.keyId, principal.accountId, monthOf(at), { requests: request ? 1 : 0, characters: s.characters })
          .catch((err: unknown) => logger.warn({ err }, '[quota] counting a request failed'))
      })
      return undefined
    }
    try {
      return await repo.inTurn(principal.accountId, (turn) => admitInTurn(turn, leases, s))
    } catch (err) {
      throw err instanceof QuotaExceeded ? refuse(principal, err) : err
    }
  }

  async function admit(principal: Principal, need: QuotaNeed = {}): Promise<QuotaTicket> {
    const limits = effectiveLimits(await repo.limits(principal.accountId), defaults)
    const leaseId = await step(principal, limits, true, need)
    if (leaseId) leases.hold(leaseId)
    let speechSeconds = 0
    let released = false
    const month = () => monthOf(now())
    return {
      charge: async (characters) => void (await step(principal, limits, false, { characters })),
      async record(usage) {
        speechSeconds += usage.speechSeconds ?? 0
        if (usage.audioSeconds) await repo.addUsage(principal.keyId, principal.accountId, month(), { audioSeconds: usage.audioSeconds })
      },
      async release() {
        if (released) return
        released = true
        try {
          // Uncounted at once, before any await: a client's next request right after this one is not refused.
          if (leaseId) await leases.release(leaseId, principal.accountId)
          if (speechSeconds > 0) await repo.addUsage(principal.keyId, principal.accountId, month(), { speechSeconds })
        } catch (err) {
          // The lease lapses by itself; only the output seconds of this request are lost.
          logger.warn({ err }, '[quota] releasing a request failed')
        }
      },
    }
  }

  return {
    admit,
    async limits(accountId) {
      const stored = await repo.limits(accountId)
      return { limits: effectiveLimits(stored, defaults), own: ownLimits(stored) }
    },
    setLimits: (accountId, changes) => repo.setLimits(accountId, toStoredChanges(changes)),
    async usage(accountId, month = monthOf(now())) {
      return { ...(await repo.accountUsage(accountId, month)), month }
    },
    keyUsageRows: (month) => repo.keyUsage(month),
    onRejected(listener) {
      listeners.add(listener)
      return () => void listeners.delete(listener)
    },
    close: () => leases.close(),
  }
}
