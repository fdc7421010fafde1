import { SpeechError } from '../../errors.js'
import type { Logger } from '../../logger.js'
import type { Principal } from '../../principal.js'
import type { KeyUsageRow, QuotaRepository, UsageTotals } from '../../store/db/repositories/quota.js'
import { createLeaseKeeper } from './leases.js'
import { effectiveLimits, monthOf, nextMonthOf, ownLimits, secondsToNextMonth, toStoredChanges, type LimitChanges, type LimitName, type QuotaLimits } from './limits.js'

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
/** Nothing says when a concurrent request will end; a second is a polite first retry. */
const CONCURRENCY_RETRY_SEC = 1

export function createQuotaService(options: QuotaOptions): QuotaService {
  const { repo, defaults, logger } = options
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS
  const now = options.now ?? Date.now
  const listeners = new Set<(r: QuotaRejection) => void>()
  const leases = createLeaseKeeper(repo, logger, leaseMs, now)
  /** The last minute whose older windows were swept (the lease timer sweeps too, but only while leases are held). */
  let sweptMinute = 0

  const limitsOf = async (accountId: string) => effectiveLimits(await repo.limits(accountId), defaults)

  const refuse = (principal: Principal, limit: LimitName, message: string, retryAfterSec: number): SpeechError => {
    for (const listener of listeners) {
      try {
        listener({ limit, accountId: principal.accountId, keyId: principal.keyId })
      } catch (err) {
        logger.warn({ err }, '[quota] a rejection listener failed')
      }
    }
    logger.info({ accountId: principal.accountId, keyId: principal.keyId, limit }, `[quota] refused: ${limit}`)
    return new SpeechError('rate_limited', message, { retryAfterSec })
  }

  /** Adds `characters` to the key's month; over the account's limit, takes them back and throws. */
  async function chargeCharacters(principal: Principal, limits: QuotaLimits, characters: number, requests: number) {
    const at = now()
    const month = monthOf(at)
    await repo.addUsage(principal.keyId, principal.accountId, month, { requests, characters })
    const max = limits.charactersPerMonth
    if (max === 0 || characters === 0) return
    const used = (await repo.accountUsage(principal.accountId, month)).characters
    if (used <= max) return
    await repo.addUsage(principal.keyId, principal.accountId, month, { requests: -requests, characters: -characters })
    const left = Math.max(0, max - (used - characters))
    throw refuse(principal, 'charactersPerMonth',
      `Monthly character limit reached: this account may synthesize ${max} characters a month and has ${left} left, ` +
        `this text needs ${characters}; send shorter text or wait for the next month (${nextMonthOf(at)}, UTC)`, secondsToNextMonth(at))
  }

  async function admit(principal: Principal, need: QuotaNeed = {}): Promise<QuotaTicket> {
    const { accountId, keyId } = principal
    const limits = await limitsOf(accountId)
    // Each step writes first and checks after; a refusal takes back what the steps before it wrote.
    const undo: Array<() => Promise<void>> = []
    const rollBack = async () => {
      for (const step of undo.reverse()) await step().catch((err) => logger.warn({ err }, '[quota] taking back a count failed'))
    }
    let leaseId: string | undefined
    try {
      const at = now()
      if (limits.requestsPerMinute > 0) {
        const minute = Math.floor(at / 60_000)
        if (minute > sweptMinute) {
          sweptMinute = minute
          void repo.sweep(at, minute - 1).catch((err) => logger.warn({ err }, '[quota] sweeping old counts failed'))
        }
        const used = await repo.bumpMinute(accountId, minute, 1)
        undo.push(async () => void (await repo.bumpMinute(accountId, minute, -1)))
        if (used > limits.requestsPerMinute) {
          const untilNextMinute = Math.max(1, Math.ceil(((minute + 1) * 60_000 - at) / 1000))
          throw refuse(principal, 'requestsPerMinute',
            `Rate limit reached: this account may make ${limits.requestsPerMinute} requests a minute; retry in ${untilNextMinute} s`,
            untilNextMinute)
        }
      }
      if (limits.concurrency > 0) {
        const id = await leases.add(accountId, keyId)
        undo.push(() => repo.dropLease(id))
        if ((await leases.count(accountId)) > limits.concurrency) {
          throw refuse(principal, 'concurrency',
            `Concurrency limit reached: this account may run ${limits.concurrency} requests and live sockets at once; retry when one has finished`,
            CONCURRENCY_RETRY_SEC)
        }
        leaseId = id
      }
      if (need.transcribes && limits.audioSecondsPerMonth > 0) {
        const used = (await repo.accountUsage(accountId, monthOf(at))).audioSeconds
        if (used >= limits.audioSecondsPerMonth) {
          throw refuse(principal, 'audioSecondsPerMonth',
            `Monthly audio limit reached: this account may transcribe ${limits.audioSecondsPerMonth} seconds of audio a month and has used ` +
              `${Math.round(used)}; wait for the next month (${nextMonthOf(at)}, UTC)`, secondsToNextMonth(at))
        }
      }
      await chargeCharacters(principal, limits, need.characters ?? 0, 1)
    } catch (err) {
      await rollBack()
      throw err
    }
    if (leaseId) leases.hold(leaseId)
    return ticket(principal, limits, leaseId)
  }

  function ticket(principal: Principal, limits: QuotaLimits, leaseId: string | undefined): QuotaTicket {
    let speechSeconds = 0
    let released = false
    return {
      charge: (characters) => chargeCharacters(principal, limits, characters, 0),
      async record(usage) {
        speechSeconds += usage.speechSeconds ?? 0
        if (usage.audioSeconds) await repo.addUsage(principal.keyId, principal.accountId, monthOf(now()), { audioSeconds: usage.audioSeconds })
      },
      async release() {
        if (released) return
        released = true
        try {
          // Uncounted at once, before any await: a client's next request right after this one is not refused.
          if (leaseId) await leases.release(leaseId, principal.accountId)
          if (speechSeconds > 0) await repo.addUsage(principal.keyId, principal.accountId, monthOf(now()), { speechSeconds })
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
