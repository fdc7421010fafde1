/**
 * Voice-activity segmentation: mono audio (16 kHz by default) → utterances of at most `maxSeconds`, split
 * at pauses, padded, in seconds. WebRTC VAD (libfvad as wasm) decides 10 ms frames; pauses shorter than
 * `minSilence` are bridged, and an absolute level floor keeps faint hum from counting as speech.
 */
import createFvad, { type FvadModule } from '@echogarden/fvad-wasm'
import { SpeechError } from '../errors.js'
import type { CallOptions, MonoSamples } from '../audio/types.js'
import { splitLongRegion, type Region } from './vad-split.js'

export interface SpeechSpan {
  readonly start: number
  readonly end: number
}

export interface VadOptions extends CallOptions {
  /** libfvad aggressiveness 0..3; higher rejects more non-speech. */
  readonly mode?: 0 | 1 | 2 | 3
  /** Pauses shorter than this (seconds) stay inside an utterance. */
  readonly minSilence?: number
  /** Voiced runs shorter than this (seconds) are dropped as clicks. */
  readonly minSpeech?: number
  /** Seconds of context kept on each side, never more than half the pause to the neighbour. */
  readonly padding?: number
  /** Longest utterance (seconds); longer stretches are cut at their longest inner pause. */
  readonly maxSeconds?: number
  /** Frames quieter than this RMS (dBFS) never count as speech. */
  readonly floorDb?: number
  /** Rate of `samples`; libfvad takes 8, 16, 32 or 48 kHz. Default 16 kHz. */
  readonly sampleRate?: 8000 | 16000 | 32000 | 48000
}

/** libfvad decides 10 ms frames. */
const FRAME_SECONDS = 0.01
/** Frames per event-loop turn: 10 s of audio, so long files never block for long. */
const FRAMES_PER_TURN = 1000

let fvadModule: Promise<FvadModule> | undefined

export function loadFvad(): Promise<FvadModule> {
  fvadModule ??= createFvad().catch((err: unknown) => {
    fvadModule = undefined
    const msg = '[vad] cannot load @echogarden/fvad-wasm; reinstall npm packages'
    throw new SpeechError('unavailable', msg, { cause: err })
  })
  return fvadModule
}

function abortError(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError')
}

/** Copies one frame into libfvad's 16-bit input and returns its energy (sum of squares, full scale 1). */
function copyFrame(samples: MonoSamples, from: number, length: number, heap: Int16Array, base: number): number {
  let energy = 0
  if (samples instanceof Int16Array) {
    for (let i = 0; i < length; i++) {
      const v = samples[from + i]!
      energy += v * v
      heap[base + i] = v
    }
    return energy / (32768 * 32768)
  }
  for (let i = 0; i < length; i++) {
    const s = samples[from + i]!
    energy += s * s
    const c = s < -1 ? -1 : s > 1 ? 1 : s
    heap[base + i] = Math.round(c < 0 ? c * 32768 : c * 32767)
  }
  return energy
}

/** One flag per 10 ms frame: true where the frame is speech. */
async function classifyFrames(
  samples: MonoSamples, rate: number, mode: number, floorDb: number, signal?: AbortSignal,
): Promise<Uint8Array> {
  const frame = rate / 100
  const m = await loadFvad()
  const inst = m._fvad_new()
  const ptr = m._malloc(frame * 2)
  const floor = 10 ** (floorDb / 20)
  const floorSquared = floor * floor * frame
  try {
    if (m._fvad_set_mode(inst, mode) < 0 || m._fvad_set_sample_rate(inst, rate) < 0) {
      throw new SpeechError('internal_error', '[vad] libfvad rejected its settings')
    }
    const frames = Math.floor(samples.length / frame)
    const voiced = new Uint8Array(frames)
    for (let f = 0; f < frames; f++) {
      if (f % FRAMES_PER_TURN === 0 && f > 0) {
        await new Promise((resolve) => setImmediate(resolve))
        if (signal?.aborted) throw abortError(signal)
      }
      if (copyFrame(samples, f * frame, frame, m.HEAP16, ptr >> 1) < floorSquared) continue
      const r = m._fvad_process(inst, ptr, frame)
      if (r < 0) throw new SpeechError('internal_error', '[vad] libfvad failed on a frame')
      voiced[f] = r
    }
    return voiced
  } finally {
    m._free(ptr)
    m._fvad_free(inst)
  }
}

/** Runs of voiced frames, with short pauses bridged and short blips dropped; frame indices, end exclusive. */
function voicedRegions(voiced: Uint8Array, minSilenceFrames: number, minSpeechFrames: number): Region[] {
  const runs: Region[] = []
  for (let f = 0; f < voiced.length; ) {
    if (!voiced[f]) { f++; continue }
    const start = f
    while (f < voiced.length && voiced[f]) f++
    runs.push({ start, end: f, gaps: [] })
  }
  const merged: Region[] = []
  for (const run of runs) {
    const last = merged[merged.length - 1]
    if (last && run.start - last.end < minSilenceFrames) {
      const gaps = [...last.gaps, { start: last.end, end: run.start }]
      merged[merged.length - 1] = { start: last.start, end: run.end, gaps }
    } else {
      merged.push(run)
    }
  }
  const voicedLength = (r: Region) => r.end - r.start - r.gaps.reduce((s, g) => s + g.end - g.start, 0)
  return merged.filter((r) => voicedLength(r) >= minSpeechFrames)
}

/**
 * Finds the speech in mono audio (16 kHz unless `sampleRate` says otherwise). Returns utterance spans in
 * seconds, in order, non-overlapping; `[]` when there is no speech.
 */
export async function detectSpeech(samples: MonoSamples, options: VadOptions = {}): Promise<SpeechSpan[]> {
  const { mode = 3, minSilence = 0.3, minSpeech = 0.15, padding = 0.25, maxSeconds = 20 } = options
  const floorDb = options.floorDb ?? -55
  const rate = options.sampleRate ?? 16_000
  if (![8000, 16000, 32000, 48000].includes(rate)) {
    throw new SpeechError('internal_error', `[vad] libfvad cannot take ${rate} Hz; resample to 16 kHz first`)
  }
  if (options.signal?.aborted) throw abortError(options.signal)
  const voiced = await classifyFrames(samples, rate, mode, floorDb, options.signal)
  const maxFrames = Math.floor(maxSeconds / FRAME_SECONDS) - 2 * Math.ceil(padding / FRAME_SECONDS)
  const toFrames = (seconds: number) => Math.round(seconds / FRAME_SECONDS)
  const regions = voicedRegions(voiced, toFrames(minSilence), toFrames(minSpeech))
    .flatMap((r) => splitLongRegion(r, Math.max(50, maxFrames)))
  const total = samples.length / rate
  const pad = padding / FRAME_SECONDS
  return regions.map((r, i) => {
    const prevEnd = i > 0 ? regions[i - 1]!.end : -Infinity
    const nextStart = i + 1 < regions.length ? regions[i + 1]!.start : Infinity
    const start = Math.max(0, r.start - Math.min(pad, (r.start - prevEnd) / 2)) * FRAME_SECONDS
    const end = Math.min(total, (r.end + Math.min(pad, (nextStart - r.end) / 2)) * FRAME_SECONDS)
    return { start: round3(start), end: round3(end) }
  })
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000
}
