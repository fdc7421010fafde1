import type { TtsEngine } from '../../engines/tts/types.js'
import { DEFAULT_COST } from './limits.js'

/**
 * Seconds of speech a character of text makes at speed 1: festival's slt speaks about 17 characters a second
 * of English prose (bench:admission's replies: 108 characters on average, 6.2–6.4 s of audio each).
 */
export const AUDIO_SEC_PER_CHAR = 0.06

/** Engine seconds a character of text costs at `perAudioSec` (see `EngineCost`): a request's expected work per character. */
export function workPerChar(perAudioSec: number | undefined): number {
  return (perAudioSec ?? DEFAULT_COST) * AUDIO_SEC_PER_CHAR
}

/**
 * What speech costs this node: seconds an engine process or worker is held per second of audio it speaks
 * (the real-time factor), measured from live traffic. The pools report how long their workers were held
 * (`TtsEngine.load`), rendering reports the audio; their ratio over recent windows is smoothed. It is wall
 * time, so a machine shared with other work (or the server's own encoding on the same cores) makes speech
 * dearer, as it should: the node then admits fewer streams.
 */
export interface EngineCost {
  /** Rendering spoke `audioSec` of `engineId` audio. */
  record(engineId: string, audioSec: number): void
  /** Worker-seconds per second of audio over all engines with workers; undefined until some was measured. */
  perAudioSec(): number | undefined
  /** The same per engine, for metrics. */
  byEngine(): ReadonlyMap<string, number>
}

/** Shortest window a new estimate is taken over, and the least audio it needs to mean something. */
const WINDOW_MS = 2000
const MIN_AUDIO_SEC = 1
/** Weight of each new window in the smoothed figure. */
const SMOOTHING = 0.3

interface Totals {
  busySec: number
  audioSec: number
}

/**
 * The cost over the window since `before`: a number, `undefined` to start a new window without a figure, or
 * `null` to keep the window open (too little audio yet). A window with no speech at all is dropped: warm-up
 * and sample generation hold workers for audio no listener gets.
 */
function estimate(before: Totals | undefined, now: Totals): number | undefined | null {
  if (!before) return undefined
  const audioSec = now.audioSec - before.audioSec
  if (audioSec === 0) return undefined
  if (audioSec < MIN_AUDIO_SEC) return null
  return (now.busySec - before.busySec) / audioSec
}

export function createEngineCost(engines: () => readonly TtsEngine[], now = () => performance.now()): EngineCost {
  const audio = new Map<string, number>()
  const last = new Map<string, Totals>()
  let lastAll: Totals | undefined
  let sampledAt = -Infinity
  const rtf = new Map<string, number>()
  let overall: number | undefined
  const smooth = (old: number | undefined, next: number) => (old === undefined ? next : old + SMOOTHING * (next - old))

  const sample = (): void => {
    if (now() - sampledAt < WINDOW_MS) return
    sampledAt = now()
    const all: Totals = { busySec: 0, audioSec: 0 }
    for (const engine of engines()) {
      const load = engine.load?.()
      if (!load) continue
      const totals = { busySec: load.busySec, audioSec: audio.get(engine.id) ?? 0 }
      all.busySec += totals.busySec
      all.audioSec += totals.audioSec
      const before = last.get(engine.id)
      const next = estimate(before, totals)
      if (next !== null) last.set(engine.id, totals)
      if (next !== null && next !== undefined) rtf.set(engine.id, smooth(rtf.get(engine.id), next))
    }
    const next = estimate(lastAll, all)
    if (next !== null) lastAll = all
    if (next !== null && next !== undefined) overall = smooth(overall, next)
  }

  return {
    record(engineId, audioSec) {
      audio.set(engineId, (audio.get(engineId) ?? 0) + audioSec)
    },
    perAudioSec() {
      sample()
      return overall
    },
    byEngine() {
      sample()
      return rtf
    },
  }
}
