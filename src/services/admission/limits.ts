import { type AdmissionLimits, SHORT_WORK_MAX_SEC } from './admission.js'

/**
 * Share of the cores the admitted streams' engine work may plan to use: the rest is the server's own work per
 * stream (levelling, encoding, sockets, on one event loop), bursts and drift. 0.8 let 8 of 32 sockets of a
 * simultaneous burst fall behind playback on 2 quiet cores, 0.6 up to 2 of 23, 0.5 none, with the same audio
 * served per second under a soak (docs/benchmarks.md, "Admission").
 */
const UTILISATION = 0.5
/** Before anything was measured: a festival/flite-like cost (bench:tts measures 0.02–0.03 on a quiet core). */
export const DEFAULT_COST = 0.05
/** Target for the first audio of a burst of new streams, and the audio their first phrase makes. */
const FIRST_AUDIO_SEC = 0.5
const FIRST_PHRASE_SEC = 2

/** Speech keeps at least this share of a core while speech recognition holds the others. */
const MIN_CORES = 0.5

/**
 * The cores speech may plan with while `busy` speech recognition decoders each hold one: a transcription
 * runs flat out on its core, so streams admitted against all the cores would fall behind. Never below half a
 * core, so speech slows down to fewer streams but is not shut out.
 */
export function coresLeft(cores: number, busy: number): number {
  return Math.max(MIN_CORES, cores - busy)
}

export interface LimitSettings {
  /** `maxStreams`; 0: automatic. */
  readonly maxStreams: number
  /** `maxStartingStreams`; 0: automatic. */
  readonly maxStartingStreams: number
  readonly cores: number
}

/**
 * The node's limits from its cores and what a second of speech costs (worker-seconds per audio second):
 * streams while their total demand stays under `UTILISATION` of the cores (each needs `cost` of a core to keep
 * pace with its listener), and streams starting at once while their first phrases fit in `FIRST_AUDIO_SEC`.
 * `share` (see `OverloadShare`) scales the automatic figures down while admitted streams fall behind. A setting
 * other than 0 replaces the automatic figure.
 */
export function admissionLimits(settings: LimitSettings, cost: number | undefined, share = 1): AdmissionLimits {
  const perSec = Math.max(cost ?? DEFAULT_COST, 0.001)
  const streams = settings.maxStreams || Math.max(1, Math.floor((share * settings.cores * UTILISATION) / perSec))
  const starting = settings.maxStartingStreams || Math.max(1, Math.floor((share * settings.cores * FIRST_AUDIO_SEC) / (perSec * FIRST_PHRASE_SEC)))
  return { streams, starting: Math.min(starting, streams) }
}

/**
 * Short work served beyond the limits (see `AdmissionOptions.shortWorkSec`/`shortWorkCapSec`). The budget is
 * what the cores left (`coresLeft`: those recognition does not hold) do in one admission wait (at most
 * `SHORT_WORK_MAX_SEC`), cut by `share` like the limits while admitted streams fall behind. The cap is one
 * `SHORT_WORK_MAX_SEC` per core of the machine, neither cut by the share nor by recognition: it bounds a flood,
 * not the node's pace, and a short stream whose wait ran out has already waited longer than its whole
 * synthesis takes. Measured with bench:admission (docs/benchmarks.md, "Admission"): a cap of 2 s per core let
 * replies pile up beyond the limits at twice the node's capacity (20 of 889 streams behind playback), a cap cut
 * by busy recognizers refused replies of 0.4 s near capacity.
 */
export function shortWorkLimits(coresLeft: number, cores: number, waitSec: number, share = 1): { budgetSec: number; capSec: number } {
  return {
    budgetSec: coresLeft * Math.min(waitSec, SHORT_WORK_MAX_SEC) * share,
    capSec: cores * SHORT_WORK_MAX_SEC,
  }
}
