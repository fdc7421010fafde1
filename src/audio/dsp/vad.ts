/**
 * A small voice-activity detector for reference clips: per-frame level and zero-crossing rate, thresholds
 * adapted to the clip's own noise floor and peak, hysteresis so weak consonants next to vowels stay in,
 * then gap bridging. It favours stable durations (speaking rate is measured over its regions) over
 * catching every breath. ASR segmentation has its own detector (src/asr/vad.ts).
 */
import { percentile } from './stats.js'

export interface Region {
  /** Seconds from the start of the samples. */
  readonly start: number
  readonly end: number
}

export interface FrameLevels {
  readonly hopSec: number
  readonly frameSec: number
  /** RMS level per frame in dBFS, floored at -100. */
  readonly db: Float32Array
  /** Zero crossings per sample, 0..1. */
  readonly zcr: Float32Array
}

export interface VadOptions {
  /** Pauses shorter than this are bridged (stop closures, short breaths). Default 120 ms. */
  readonly minGapMs?: number
  /** Active runs shorter than this are dropped (clicks). Default 60 ms. */
  readonly minSpeechMs?: number
  /** Added to both sides of every region. Default 20 ms. */
  readonly padMs?: number
}

const FRAME_SEC = 0.02
const HOP_SEC = 0.01
const FLOOR_DB = -100

export function frameLevels(samples: Float32Array, rate: number): FrameLevels {
  const frame = Math.round(FRAME_SEC * rate)
  const hop = Math.round(HOP_SEC * rate)
  const full = 1 + Math.floor((samples.length - frame) / hop)
  const count = samples.length < frame ? (samples.length > 0 ? 1 : 0) : full
  const db = new Float32Array(count)
  const zcr = new Float32Array(count)
  for (let f = 0; f < count; f++) {
    const from = f * hop
    const to = Math.min(samples.length, from + frame)
    let sum = 0
    let crossings = 0
    let prev = samples[from]!
    for (let i = from; i < to; i++) {
      const s = samples[i]!
      sum += s * s
      if ((s >= 0) !== (prev >= 0)) crossings++
      prev = s
    }
    const rmsValue = Math.sqrt(sum / Math.max(1, to - from))
    db[f] = Math.max(FLOOR_DB, 20 * Math.log10(rmsValue + 1e-12))
    zcr[f] = crossings / Math.max(1, to - from)
  }
  return { hopSec: hop / rate, frameSec: frame / rate, db, zcr }
}

/** Per-frame activity (1 = speech) from `frameLevels`, before gap bridging. */
export function activeFrames(levels: FrameLevels): Uint8Array {
  const { db, zcr } = levels
  const out = new Uint8Array(db.length)
  if (db.length === 0) return out
  const noise = percentile(db, 10)
  const peak = percentile(db, 99)
  // Under ~8 dB between floor and peak there is nothing to tell speech from background by level.
  if (peak - noise < 8 || peak < -70) return out
  const high = Math.min(peak - 3, Math.max(noise + 15, peak - 35, -60))
  const low = Math.min(high, Math.max(noise + 6, peak - 50, -70))
  const quiet: number[] = []
  for (let f = 0; f < db.length; f++) if (db[f]! < noise + 3) quiet.push(zcr[f]!)
  const noiseZcr = quiet.length > 0 ? percentile(quiet, 50) : 0
  const extendable = (f: number) =>
    db[f]! >= low || (db[f]! >= noise + 4 && zcr[f]! >= Math.max(0.25, noiseZcr + 0.1))
  for (let f = 0; f < db.length; f++) if (db[f]! >= high) out[f] = 1
  // Hysteresis: grow every seed outwards over frames that are merely "not background".
  for (let f = 1; f < db.length; f++) if (out[f - 1] && !out[f] && extendable(f)) out[f] = 2
  for (let f = db.length - 2; f >= 0; f--) if (out[f + 1] && !out[f] && extendable(f)) out[f] = 2
  for (let f = 0; f < out.length; f++) if (out[f]) out[f] = 1
  return out
}

/** Speech regions in seconds, sorted and non-overlapping. */
export function voicedRegions(samples: Float32Array, rate: number, options: VadOptions = {}): Region[] {
  const levels = frameLevels(samples, rate)
  return regionsFromFrames(activeFrames(levels), levels, samples.length / rate, options)
}

export function regionsFromFrames(
  active: Uint8Array,
  levels: FrameLevels,
  durationSec: number,
  options: VadOptions = {},
): Region[] {
  const minGap = (options.minGapMs ?? 120) / 1000
  const minSpeech = (options.minSpeechMs ?? 60) / 1000
  const pad = (options.padMs ?? 20) / 1000
  const raw: { start: number; end: number }[] = []
  for (let f = 0; f < active.length; f++) {
    if (!active[f]) continue
    const start = f * levels.hopSec
    const end = Math.min(durationSec, f * levels.hopSec + levels.frameSec)
    const last = raw[raw.length - 1]
    if (last && start - last.end < minGap) last.end = Math.max(last.end, end)
    else raw.push({ start, end })
  }
  const kept = raw.filter((r) => r.end - r.start >= minSpeech)
  const out: Region[] = []
  for (const r of kept) {
    const start = Math.max(0, r.start - pad)
    const end = Math.min(durationSec, r.end + pad)
    const last = out[out.length - 1]
    if (last && start <= last.end) out[out.length - 1] = { start: last.start, end }
    else out.push({ start, end })
  }
  return out
}

export interface Trimmed {
  /** A view into the input (no copy). */
  readonly samples: Float32Array
  /** Sample index of the first kept sample; `end` is exclusive. */
  readonly start: number
  readonly end: number
}

/** Cuts leading and trailing silence, keeping `padMs` (default 100 ms) around the speech. */
export function trimSilence(samples: Float32Array, rate: number, options: { padMs?: number } = {}): Trimmed {
  const regions = voicedRegions(samples, rate)
  const first = regions[0]
  const last = regions[regions.length - 1]
  if (!first || !last) return { samples: samples.subarray(0, 0), start: 0, end: 0 }
  const pad = (options.padMs ?? 100) / 1000
  const start = Math.max(0, Math.floor((first.start - pad) * rate))
  const end = Math.min(samples.length, Math.ceil((last.end + pad) * rate))
  return { samples: samples.subarray(start, end), start, end }
}

/** Total seconds covered by `regions`. */
export function regionsDuration(regions: readonly Region[]): number {
  let total = 0
  for (const r of regions) total += r.end - r.start
  return total
}
