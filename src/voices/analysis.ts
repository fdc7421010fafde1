/**
 * Voice analysis of a reference clip: resample to 16 kHz, find speech with the reference VAD, trim the
 * silence around it, then measure F0 (YIN), speaking rate, timbre and loudness. Pure computation on the
 * calling thread, about 8 ms of CPU per second of audio (docs/voice-cloning.md); the stages yield to the
 * event loop between each other so an abort is noticed.
 */
import { SpeechError } from '../errors.js'
import { resampleAll } from '../audio/resample.js'
import { f0Range, isVoicedAt, medianF0, trackPitch, voicedF0 } from '../audio/dsp/pitch.js'
import { timbreDescriptor } from '../audio/dsp/spectrum.js'
import { gainToDb } from '../audio/dsp/stats.js'
import { activeFrames, frameLevels, regionsDuration, regionsFromFrames } from '../audio/dsp/vad.js'
import type { FrameLevels } from '../audio/dsp/vad.js'
import { NO_SPEECH } from './quality.js'
import { countSyllableNuclei } from './syllable-nuclei.js'
import { countSyllables } from './syllables.js'
import { VOICE_PROFILE_VERSION, type AnalyzeOptions, type VoiceProfile } from './types.js'

export const ANALYSIS_RATE = 16000
/** Less speech than this cannot give a stable F0 or rate. */
const MIN_SPEECH_SEC = 0.3
const TRIM_PAD_SEC = 0.1

const pause = () => new Promise((resolve) => setImmediate(resolve))

export async function analyzeVoice(
  samples: Float32Array,
  sampleRate: number,
  options: AnalyzeOptions = {},
): Promise<VoiceProfile> {
  const { signal } = options
  signal?.throwIfAborted()
  if (samples.length === 0 || !Number.isFinite(sampleRate) || sampleRate < 8000) {
    throw new SpeechError('bad_request', '[voice-analysis] the reference audio is empty or below 8 kHz')
  }
  const rate = Math.min(sampleRate, ANALYSIS_RATE)
  // A DC offset (common with cheap microphones) raises the level of quiet frames, which moves the VAD's
  // speech time and so the speaking rate; it is removed before any measurement.
  const x = withoutDc(rate === sampleRate ? samples : resampleAll(samples, sampleRate, rate))
  const durationSec = samples.length / sampleRate
  const levels = frameLevels(x, rate)
  const active = activeFrames(levels)
  const regions = regionsFromFrames(active, levels, x.length / rate)
  const speechSec = regionsDuration(regions)
  const first = regions[0]
  const last = regions[regions.length - 1]
  if (!first || !last || speechSec < MIN_SPEECH_SEC) {
    const message = `[voice-analysis] no speech found in the reference audio (${durationSec.toFixed(2)} s)`
    throw new SpeechError('bad_request', message, { cause: NO_SPEECH })
  }
  const offset = Math.max(0, Math.floor((first.start - TRIM_PAD_SEC) * rate))
  const trimmed = x.subarray(offset, Math.min(x.length, Math.ceil((last.end + TRIM_PAD_SEC) * rate)))

  await pause()
  signal?.throwIfAborted()
  const pitch = trackPitch(trimmed, rate)
  const voiced = voicedF0(pitch.f0)
  if (voiced.length < 10) {
    const message = '[voice-analysis] no voiced speech (pitch) found in the reference audio'
    throw new SpeechError('bad_request', message, { cause: NO_SPEECH })
  }
  const range = f0Range(pitch)
  const speechFrames = Math.max(1, Math.round(speechSec / pitch.hopSec))

  await pause()
  signal?.throwIfAborted()
  const transcript = options.transcript?.trim()
  const syllables = transcript ? countSyllables(transcript) : countSyllableNuclei(trimmed, rate, pitch)
  const timbre = timbreDescriptor(trimmed, rate, { include: (t) => isVoicedAt(pitch, t) })

  let peak = 0
  let clipped = 0
  for (let i = 0; i < samples.length; i++) {
    const a = Math.abs(samples[i]!)
    if (a > peak) peak = a
    if (a >= 0.999) clipped++
  }
  const r = (v: number, digits: number) => Math.round(v * 10 ** digits) / 10 ** digits
  return {
    version: VOICE_PROFILE_VERSION,
    durationSec: r(durationSec, 3),
    speechSec: r(speechSec, 3),
    voicedRatio: r(Math.min(1, speechSec / durationSec), 3),
    f0: {
      medianHz: r(medianF0(pitch), 2),
      p10Hz: r(range.lowHz, 2),
      p90Hz: r(range.highHz, 2),
      rangeSemitones: r(range.semitones, 2),
      voicedFrameRatio: r(Math.min(1, voiced.length / speechFrames), 3),
    },
    rate: {
      syllablesPerSec: r(syllables / speechSec, 3),
      syllables,
      method: transcript ? 'transcript' : 'energy-peaks',
    },
    timbre,
    loudness: { rmsDbfs: r(speechLevel(levels, active), 2), peakDbfs: r(gainToDb(peak), 2) },
    quality: { clippingRatio: r(clipped / samples.length, 6), snrDb: r(snr(levels, active), 1) },
    sources: [],
  }
}

function withoutDc(x: Float32Array): Float32Array {
  let sum = 0
  for (let i = 0; i < x.length; i++) sum += x[i]!
  const mean = sum / x.length
  const out = new Float32Array(x.length)
  for (let i = 0; i < x.length; i++) out[i] = x[i]! - mean
  return out
}

/** Mean power of speech frames, dBFS. */
function speechLevel(levels: FrameLevels, active: Uint8Array): number {
  return meanDb(levels.db, active, 1)
}

/** Speech level over the mean power of non-speech frames; capped at 80 dB (digital silence). */
function snr(levels: FrameLevels, active: Uint8Array): number {
  let background = 0
  for (let f = 0; f < active.length; f++) if (!active[f]) background++
  // Without pauses the quietest tenth of the frames stands in for the background.
  const noise = background >= 10 ? meanDb(levels.db, active, 0) : quietest(levels.db, 0.1)
  return Math.max(-20, Math.min(80, speechLevel(levels, active) - noise))
}

function meanDb(db: Float32Array, active: Uint8Array, want: number): number {
  let sum = 0
  let n = 0
  for (let f = 0; f < db.length; f++) {
    if (active[f] !== want) continue
    sum += 10 ** (db[f]! / 10)
    n++
  }
  return n > 0 ? 10 * Math.log10(sum / n + 1e-20) : -100
}

function quietest(db: Float32Array, share: number): number {
  const sorted = Float64Array.from(db).sort()
  const n = Math.max(1, Math.floor(sorted.length * share))
  let sum = 0
  for (let i = 0; i < n; i++) sum += 10 ** (sorted[i]! / 10)
  return 10 * Math.log10(sum / n + 1e-20)
}
