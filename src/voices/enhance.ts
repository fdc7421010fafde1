/**
 * `enhance_audio_quality` for voice samples: a modest in-house clean-up, not a neural denoiser (none can be
 * installed here). Three steps, each measured and reported:
 *
 * 1. DC and rumble removal (first-order high-pass at 60 Hz).
 * 2. Spectral gating, only when the background is within 35 dB of the speech: the noise spectrum is the
 *    average power spectrum of the quietest 15 % of 32 ms frames; each STFT bin then gets the gain `max(floor, 1 - 2 × noise / power)` (power subtraction with 2× over-
 *    subtraction), smoothed over neighbouring bins and in time against "musical noise", and the frames are
 *    overlap-added back (Hann, 75 % overlap). The floor is -15 dB, so noise is lowered, never gated to silence,
 *    and speech keeps its own spectrum where it is well above the noise.
 * 3. Levelling: one gain that brings the speech frames (within 30 dB of the loudest) to -20 dBFS RMS, lowered
 *    so the peak stays at or below -1 dBFS. No compression, so the voice's dynamics stay as recorded.
 *
 * Clipping cannot be repaired; the quality check measures it on the original upload.
 */
import { fft, hann, nextPow2 } from '../audio/dsp/fft.js'
import { percentile } from '../audio/dsp/stats.js'

export interface EnhanceResult {
  readonly samples: Float32Array
  /** Background level before, dBFS (mean of the quietest frames). */
  readonly noiseDbfs: number
  /** How far the background went down, dB (0 when there was nothing to remove). */
  readonly noiseReductionDb: number
  /** Gain of the levelling step, dB. */
  readonly gainDb: number
}

const FRAME_SEC = 0.032
const NOISE_SHARE = 15
const OVER_SUBTRACT = 2
const FLOOR_GAIN = 10 ** (-15 / 20)
/** Below this the background is digital silence or close to it: nothing to subtract. */
const SILENT_DBFS = -75
/** Speech (90th percentile frame) this far above the background needs no denoising. */
const CLEAN_SNR_DB = 35
const TARGET_DBFS = -20
const CEILING = 10 ** (-1 / 20)
const FRAMES_PER_YIELD = 256

const db = (power: number) => 10 * Math.log10(power + 1e-20)

export async function enhanceSpeech(
  input: Float32Array,
  sampleRate: number,
  options: { readonly signal?: AbortSignal } = {},
): Promise<EnhanceResult> {
  const { signal } = options
  signal?.throwIfAborted()
  const x = highPass(input, sampleRate, 60)
  const size = nextPow2(Math.round(FRAME_SEC * sampleRate))
  const hop = size / 4
  const frames = x.length < size ? 0 : 1 + Math.floor((x.length - size) / hop)
  const energy = new Float64Array(frames)
  for (let f = 0; f < frames; f++) {
    let sum = 0
    for (let i = f * hop; i < f * hop + size; i++) sum += x[i]! * x[i]!
    energy[f] = db(sum / size)
  }
  const quietLimit = frames > 0 ? percentile(energy, NOISE_SHARE) : -Infinity
  const quiet: number[] = []
  for (let f = 0; f < frames; f++) if (energy[f]! <= quietLimit) quiet.push(f)
  let noiseDbfs = -120
  if (quiet.length > 0) noiseDbfs = db(quiet.reduce((s, f) => s + 10 ** (energy[f]! / 10), 0) / quiet.length)

  let out = x
  let noiseReductionDb = 0
  // A clean recording is left alone: subtracting its breaths and room tone would only colour the voice
  // (measured on clean festival speech: timbre moved by 0.96 dB, for nothing).
  const speechDbfs = frames > 0 ? percentile(energy, 90) : -120
  const noisy = noiseDbfs > SILENT_DBFS && speechDbfs - noiseDbfs < CLEAN_SNR_DB
  if (frames >= 8 && quiet.length >= 4 && noisy) {
    out = await spectralGate(x, size, hop, frames, quiet, signal)
    let after = 0
    for (const f of quiet) {
      let sum = 0
      for (let i = f * hop; i < f * hop + size; i++) sum += out[i]! * out[i]!
      after += sum / size
    }
    noiseReductionDb = Math.max(0, noiseDbfs - db(after / quiet.length))
  }
  const gainDb = level(out, sampleRate)
  const r = (v: number) => Math.round(v * 100) / 100
  return { samples: out, noiseDbfs: r(noiseDbfs), noiseReductionDb: r(noiseReductionDb), gainDb: r(gainDb) }
}

function highPass(x: Float32Array, rate: number, hz: number): Float32Array {
  const a = Math.exp((-2 * Math.PI * hz) / rate)
  const out = new Float32Array(x.length)
  let prevIn = 0
  let prevOut = 0
  for (let i = 0; i < x.length; i++) {
    const v = x[i]!
    prevOut = a * (prevOut + v - prevIn)
    prevIn = v
    out[i] = prevOut
  }
  return out
}

async function spectralGate(
  x: Float32Array, size: number, hop: number, frames: number, quiet: readonly number[], signal?: AbortSignal,
): Promise<Float32Array> {
  const half = size / 2
  const window = hann(size)
  const re = new Float64Array(size)
  const im = new Float64Array(size)
  const noise = new Float64Array(half + 1)
  const load = (f: number) => {
    for (let i = 0; i < size; i++) re[i] = x[f * hop + i]! * window[i]!
    im.fill(0)
    fft(re, im)
  }
  for (const f of quiet) {
    load(f)
    for (let k = 0; k <= half; k++) noise[k] = noise[k]! + (re[k]! * re[k]! + im[k]! * im[k]!) / quiet.length
  }
  // Float32 accumulators: a 300 s sample at 48 kHz is 14 M samples.
  const out = new Float32Array(x.length)
  const norm = new Float32Array(x.length)
  const gain = new Float64Array(half + 1)
  const smoothed = new Float64Array(half + 1)
  const previous = new Float64Array(half + 1).fill(1)
  for (let f = 0; f < frames; f++) {
    if (f % FRAMES_PER_YIELD === FRAMES_PER_YIELD - 1) {
      await new Promise((resolve) => setImmediate(resolve))
      signal?.throwIfAborted()
    }
    load(f)
    for (let k = 0; k <= half; k++) {
      const power = re[k]! * re[k]! + im[k]! * im[k]! + 1e-20
      gain[k] = Math.max(FLOOR_GAIN, Math.sqrt(Math.max(0, 1 - (OVER_SUBTRACT * noise[k]!) / power)))
    }
    for (let k = 0; k <= half; k++) {
      const across = (gain[Math.max(0, k - 1)]! + gain[k]! + gain[Math.min(half, k + 1)]!) / 3
      // Gains may rise at once (onsets stay sharp) but fall only gradually (no flutter in decays).
      smoothed[k] = Math.max(across, 0.6 * previous[k]! + 0.4 * across)
      previous[k] = smoothed[k]!
    }
    for (let k = 0; k <= half; k++) {
      re[k] = re[k]! * smoothed[k]!
      im[k] = im[k]! * smoothed[k]!
    }
    // Real output: mirror the half spectrum, then the inverse FFT as a forward FFT of the conjugate.
    for (let k = 1; k < half; k++) {
      re[size - k] = re[k]!
      im[size - k] = -im[k]!
    }
    for (let i = 0; i < size; i++) im[i] = -im[i]!
    fft(re, im)
    for (let i = 0; i < size; i++) {
      const at = f * hop + i
      out[at] = out[at]! + (re[i]! / size) * window[i]!
      norm[at] = norm[at]! + window[i]! * window[i]!
    }
  }
  const result = new Float32Array(x.length)
  // The first and last frames have less overlap; where no frame reached, the input passes unchanged.
  for (let i = 0; i < x.length; i++) result[i] = norm[i]! > 1e-3 ? out[i]! / norm[i]! : x[i]!
  return result
}

/** Scales in place to TARGET_DBFS speech RMS under the peak ceiling; returns the gain in dB. */
function level(samples: Float32Array, rate: number): number {
  const frame = Math.max(1, Math.round(0.02 * rate))
  const powers: number[] = []
  let peak = 0
  for (let start = 0; start < samples.length; start += frame) {
    const end = Math.min(samples.length, start + frame)
    let sum = 0
    for (let i = start; i < end; i++) {
      sum += samples[i]! * samples[i]!
      peak = Math.max(peak, Math.abs(samples[i]!))
    }
    powers.push(sum / (end - start))
  }
  if (powers.length === 0 || peak === 0) return 0
  const loudest = Math.max(...powers)
  const speech = powers.filter((p) => p > loudest / 1000)
  const speechDb = db(speech.reduce((s, p) => s + p, 0) / speech.length)
  const gainDb = Math.min(TARGET_DBFS - speechDb, 20 * Math.log10(CEILING / peak), 30)
  const g = 10 ** (gainDb / 20)
  for (let i = 0; i < samples.length; i++) samples[i] = samples[i]! * g
  return gainDb
}
