import type { Principal } from '../../principal.js'
import type { QuotaQueries } from '../../store/db/repositories/quota.js'
import type { LeaseKeeper } from './leases.js'
import { monthOf, nextMonthOf, secondsToNextMonth, type LimitName, type QuotaLimits } from './limits.js'

/** A limit a request would break: which, what to tell the client, and when to come back. */
export class QuotaExceeded extends Error {
  readonly limit: LimitName
  readonly retryAfterSec: number
  constructor(limit: LimitName, message: string, retryAfterSec: number) {
    super(message)
    this.limit = limit
    this.retryAfterSec = retryAfterSec
  }
}

/** Nothing says when a concurrent request will end; a second is a polite first retry. */
const CONCURRENCY_RETRY_SEC = 1

export interface AdmissionStep {
  readonly principal: Principal
  readonly limits: QuotaLimits
  /** Milliseconds since the epoch: the minute and month the request counts in. */
  readonly at: number
  /** Counts as a request (a new admission), or only adds characters (a live socket's text). */
  readonly request: boolean
  readonly characters: number
  readonly transcribes: boolean
}

/**
 * Checks every limit a step touches and writes its counts, inside the account's turn (`repo` is the turn's
 * transaction): each check sees every count before it, on any node, and a refusal (thrown) writes nothing.
 * Returns the new lease's id when the account's concurrency is limited.
 */
export async function admitInTurn(repo: QuotaQueries, leases: LeaseKeeper, step: AdmissionStep): Promise<string | undefined> {
  const { principal: { accountId, keyId }, limits, at } = step
  const month = monthOf(at)
  let leaseId: string | undefined
  if (step.request && limits.requestsPerMinute > 0) {
    const minute = Math.floor(at / 60_000)
    if ((await repo.minuteCount(accountId, minute)) >= limits.requestsPerMinute) {
      const wait = Math.max(1, Math.ceil(((minute + 1) * 60_000 - at) / 1000))
      throw new QuotaExceeded('requestsPerMinute', `Rate limit reached: this account may make ${limits.requestsPerMinute} requests a minute; retry in ${wait} s`, wait)
    }
    await repo.bumpMinute(accountId, minute)
  }
  if (step.request && limits.concurrency > 0) {
    // Counted before the releasing ones are looked at: a lease whose delete lands in between is counted and
    // not subtracted (a refusal at worst), never the other way round.
    const live = await repo.liveLeases(accountId, at)
    if (live - leases.leaving(accountId) >= limits.concurrency) {
      throw new QuotaExceeded('concurrency',
        `Concurrency limit reached: this account may run ${limits.concurrency} requests and live sockets at once; retry when one has finished`,
        CONCURRENCY_RETRY_SEC)
    }
    leaseId = leases.newId()
    await repo.addLease(leaseId, accountId, keyId, at + leases.leaseMs)
  }
  if (step.transcribes && limits.audioSecondsPerMonth > 0) {
    const used = (await repo.accountUsage(accountId, month)).audioSeconds
    if (used >= limits.audioSecondsPerMonth) {
      throw new QuotaExceeded('audioSecondsPerMonth',
        `Monthly audio limit reached: this account may transcribe ${limits.audioSecondsPerMonth} seconds of audio a month and has used ` +
          `${Math.round(used)}; wait for the next month (${nextMonthOf(at)}, UTC)`, secondsToNextMonth(at))
    }
  }
  const max = limits.charactersPerMonth
  if (step.characters > 0 && max > 0) {
    const left = Math.max(0, max - (await repo.accountUsage(accountId, month)).characters)
    if (step.characters > left) {
      throw new QuotaExceeded('charactersPerMonth',
        `Monthly character limit reached: this account may synthesize ${max} characters a month and has ${left} left, ` +
          `this text needs ${step.characters}; send shorter text or wait for the next month (${nextMonthOf(at)}, UTC)`, secondsToNextMonth(at))
    }
  }
  await repo.addUsage(keyId, accountId, month, { requests: step.request ? 1 : 0, characters: step.characters })
  return leaseId
}

/** Whether a step needs the account's turn at all: with no limit it touches, it only counts usage. */
export function needsTurn(step: AdmissionStep): boolean {
  const l = step.limits
  return (step.request && (l.requestsPerMinute > 0 || l.concurrency > 0)) ||
    (step.transcribes && l.audioSecondsPerMonth > 0) || (step.characters > 0 && l.charactersPerMonth > 0)
}
