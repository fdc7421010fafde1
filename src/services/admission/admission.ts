import { abortReason } from '../../abort.js'
import { SpeechError } from '../../errors.js'
import { type Turn, waitInLine } from '../waiting-line.js'

/** Where a stream came in: labels for metrics and messages. */
export type StreamSurface = 'tts' | 'sse' | 'openai' | 'live' | 'wyoming'

/** How many streams the node runs at once, and how many of them may still be waiting for their first audio. */
export interface AdmissionLimits {
  readonly streams: number
  readonly starting: number
}

export interface AdmissionOptions {
  /** Asked on every decision: the automatic limits follow the measured engine cost. */
  limits(): AdmissionLimits
  /** Streams that may wait for a place; beyond it a new one is turned away at once. */
  readonly queueLength: number
  /** Longest wait for a place before the stream is turned away, ms (a stream may ask for longer, see `StreamRequest`). */
  readonly waitMs: number
  /**
   * Seconds of engine work a character of text costs now (see `workPerChar` in engine-cost.ts); without it
   * every stream counts as the same work.
   */
  secPerChar?(): number
  /**
   * Expected work (seconds) that short streams (see `Admission.admit`) admitted beyond the limits may add up to
   * at once and still be served without waiting (one such stream at a time always). Asked on every decision,
   * like `limits`. Without it, nothing is served beyond the limits.
   */
  shortWorkSec?(): number
  /**
   * The hard bound on that work, above `shortWorkSec`: a short stream whose wait runs out is served beyond the
   * limits while the short work running there, its own included, stays within this; past it, it waits on (see
   * `Admission.admit`) and is then refused. Without it, a short stream whose wait runs out is refused.
   */
  shortWorkCapSec?(): number
  /** A stream was turned away (metrics). */
  onReject?(surface: StreamSurface): void
  /** A stream's first audio left, `sec` after it asked for a place (metrics). */
  onFirstAudio?(surface: StreamSurface, sec: number): void
  /** An admitted stream fell behind its listener (see `Admission.fellBehind`). */
  onFellBehind?(surface: StreamSurface): void
}

/** A stream's place. Both calls are idempotent; `release` also ends the starting phase. */
export interface AdmissionTicket {
  /** Its first audio left: it no longer counts among the starting streams. */
  firstAudio(): void
  release(): void
}

/** What a stream asks of the node. */
export interface StreamRequest {
  /** Characters of text it speaks: its expected work is these times `secPerChar`. */
  readonly chars?: number
  /** How long it may wait for a place, ms, if longer than `waitMs` (a live utterance's latency budget). */
  readonly waitMs?: number
}

export interface Admission {
  /**
   * A place for one stream: at once if the node has room, else after waiting in line for up to `waitMs`;
   * the line serves the least expected work first. A short stream (expected work shorter than its wait and
   * than `SHORT_WORK_MAX_SEC`, and no wait of its own) is served beyond the limits: at once while the short
   * work there stays within `shortWorkSec`; else it waits, takes that budget as soon as a short stream ends, and
   * when its wait runs out is served anyway while the short work stays within `shortWorkCapSec`. With the cap
   * reached then, it waits once more as long (at most `SHORT_WORK_MAX_SEC`), taking room under the cap as soon as
   * short work ends. Rejects with a 503 `engine_busy` carrying `retryAfterSec` when the line is full (not for
   * short streams or ones with a wait of their own) or the wait runs out (for a short stream: the second one,
   * with the cap still reached), and with the abort reason if `signal` aborts while waiting.
   */
  admit(surface: StreamSurface, signal?: AbortSignal, request?: StreamRequest): Promise<AdmissionTicket>
  /** An admitted stream's audio came after its listener ran out although its text was there: the node is over capacity. */
  fellBehind(surface: StreamSurface): void
  /** Streams running, still starting, and waiting; the limits now. */
  snapshot(): { running: Record<StreamSurface, number>; starting: number; queued: number; limits: AdmissionLimits; shortWorkSec: number }
}

/**
 * Work counts as short (served rather than refused, see `shortWorkSec`) below its wait, but never above this:
 * with a long `admissionWaitSec` every request would be "shorter than its wait", and the limits void.
 */
export const SHORT_WORK_MAX_SEC = 1

/** Bounds for the `Retry-After` advice, seconds. */
const RETRY_MIN_SEC = 1
const RETRY_MAX_SEC = 30

/**
 * Admission control for one node. The engines serve the earliest deadline first, so every stream keeps
 * ahead of its listener as long as the node is not asked for more speech per second than it can make; this
 * keeps it there. Work beyond the limits waits in a short line and is then turned away with a `Retry-After`,
 * where a load balancer or the client can try again: better one clear 503 than every listener stalling. Short
 * work (less than its wait) is the exception: refusing it would cost its client more than serving it costs
 * the node, so it is served beyond the limits, within a budget at once and within a cap after its wait.
 */
export function createAdmission(options: AdmissionOptions): Admission {
  const running: Record<StreamSurface, number> = { tts: 0, sse: 0, openai: 0, live: 0, wyoming: 0 }
  /**
   * Streams holding a place within the limits, and those of them still starting. Short streams served beyond
   * the limits count in neither: when a place within the limits frees, the line gets it, even while short
   * work runs beyond them (else a live utterance waiting for a place would wait for every short stream too).
   */
  let within = 0
  let starting = 0
  let beyondStreams = 0
  const queue: Turn[] = []
  /**
   * Each waiting turn's expected work (the line is kept in order of it: least first, then arrival), and for
   * short work, how to take it beyond the limits once the short-work budget has room.
   */
  const workOf = new WeakMap<Turn, number>()
  const takeBeyond = new WeakMap<Turn, () => void>()
  /** Short turns whose wait ran out with the cap reached: they take room under the cap, not only the budget. */
  const overdue = new WeakSet<Turn>()
  /** Expected work of the streams admitted beyond the limits and still running. */
  let shortWork = 0
  // Smoothed seconds a stream holds its place: how soon one is likely to free up.
  let holdSec = RETRY_MIN_SEC

  const hasRoom = () => {
    const limits = options.limits()
    return within < limits.streams && starting < limits.starting
  }

  const ticket = (surface: StreamSurface, askedAt: number, beyond = 0): AdmissionTicket => {
    const inside = beyond === 0
    shortWork += beyond
    if (inside) {
      within++
      starting++
    } else beyondStreams++
    running[surface]++
    const admittedAt = performance.now()
    let started = false
    let released = false
    const firstAudio = () => {
      if (started) return
      started = true
      if (inside) starting--
      options.onFirstAudio?.(surface, (performance.now() - askedAt) / 1000)
      pump()
    }
    return {
      firstAudio,
      release() {
        if (released) return
        if (!started && inside) starting--
        started = true
        released = true
        shortWork -= beyond
        if (inside) within--
        else beyondStreams--
        running[surface]--
        holdSec += 0.2 * ((performance.now() - admittedAt) / 1000 - holdSec)
        pump()
      },
    }
  }

  // One short stream at a time always fits: however far the budget is cut, short work keeps moving (each is
  // done within its wait by definition) instead of being refused behind a place it never needed.
  const fitsShortBudget = (work: number) => options.shortWorkSec !== undefined && (shortWork === 0 || shortWork + work <= options.shortWorkSec())
  const fitsShortCap = (work: number) => options.shortWorkCapSec !== undefined && shortWork + work <= options.shortWorkCapSec()

  // A place freed goes to the front of the line; short work freed (a short stream ended) goes to the short work
  // waiting, in line order, which would otherwise wait for a place it never needed and be refused. A live unit
  // with less work may stand before it: it waits for a place (its socket keeps one for the whole reply).
  const pump = () => {
    while (queue.length > 0 && hasRoom()) queue.shift()!()
    for (const turn of [...queue]) {
      const beyond = takeBeyond.get(turn)
      const work = workOf.get(turn) ?? 0
      if (beyond && (fitsShortBudget(work) || (overdue.has(turn) && fitsShortCap(work)))) beyond()
    }
  }

  const busy = (surface: StreamSurface, why: string): SpeechError => {
    options.onReject?.(surface)
    const retryAfterSec = Math.min(RETRY_MAX_SEC, Math.max(RETRY_MIN_SEC, Math.ceil(holdSec)))
    const { streams } = options.limits()
    return new SpeechError('engine_busy', `The server is at capacity (${within} of ${streams} streams speaking${beyondStreams ? ` and ${beyondStreams} short ones beyond` : ''}, ${why}); retry in ${retryAfterSec} s, or send it to another instance`, { retryAfterSec })
  }

  /** Puts the turn just joined (last) in its place: behind every turn with as little work or less. */
  const order = (work: number): Turn => {
    const turn = queue.pop()!
    workOf.set(turn, work)
    const at = queue.findIndex((t) => (workOf.get(t) ?? 0) > work)
    queue.splice(at < 0 ? queue.length : at, 0, turn)
    return turn
  }

  return {
    admit(surface, signal, request = {}) {
      if (signal?.aborted) return Promise.reject(abortReason(signal))
      const askedAt = performance.now()
      const waitMs = Math.max(options.waitMs, request.waitMs ?? 0)
      const work = (request.chars ?? 0) * (options.secPerChar?.() ?? 0)
      if (queue.length === 0 && hasRoom()) return Promise.resolve(ticket(surface, askedAt))
      // Done sooner than it would wait to be refused: serving it costs the node less than the wait costs the
      // client. At once while such streams together stay within the budget; after its wait, within the cap. A
      // stream with a wait of its own (a live socket, which keeps its place for a whole reply, not one unit)
      // waits for a place instead.
      const short = request.waitMs === undefined && work > 0 && work < Math.min(waitMs / 1000, SHORT_WORK_MAX_SEC)
      if (short && fitsShortBudget(work)) return Promise.resolve(ticket(surface, askedAt, work))
      // A full line turns away new work, but not a live utterance within its latency budget, nor work shorter
      // than its wait (it goes to the front: least work first).
      if (queue.length >= options.queueLength && !short && request.waitMs === undefined) return Promise.reject(busy(surface, `${queue.length} waiting`))
      let beyond = 0
      // A short stream that has waited its whole wait has paid more than its work costs the node: it is served
      // now, unless short work beyond the limits is at its cap (a flood of tiny requests must not take the node).
      // Then it waits once more as long: the short work holding the cap is each done within its own wait, so
      // room comes back within that unless the node is flooded, and the first room goes to it (see `pump`).
      const servedAtDeadline = () => {
        if (!fitsShortCap(work)) return false
        beyond = work
        return true
      }
      const graceMs = short ? Math.min(waitMs, SHORT_WORK_MAX_SEC * 1000) : 0
      const waiting = waitInLine(queue, () => ticket(surface, askedAt, beyond), {
        ...(signal && { signal }),
        waitMs,
        ...(short && { servedAtDeadline, graceMs, overdue: () => void overdue.add(turn) }),
        timedOut: () => busy(surface, short ? `no place within ${(waitMs + graceMs) / 1000} s, short work at its cap` : `no place within ${waitMs / 1000} s`),
      })
      const turn = order(work)
      if (short) {
        takeBeyond.set(turn, () => {
          beyond = work
          turn()
        })
      }
      return waiting
    },
    fellBehind: (surface) => options.onFellBehind?.(surface),
    snapshot: () => ({ running: { ...running }, starting, queued: queue.length, limits: options.limits(), shortWorkSec: shortWork }),
  }
}
