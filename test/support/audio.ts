/**
 * Test support for src/audio: synthetic signals and ffmpeg/ffprobe as an independent reference decoder.
 * Not used at run time (ffmpeg is a test-only dependency).
 */
import { spawn } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export interface ProbeResult {
  readonly streams: readonly {
    readonly codec_name?: string
    readonly sample_rate?: string
    readonly channels?: number
    readonly bit_rate?: string
    readonly duration?: string
  }[]
  readonly format: { readonly format_name?: string; readonly duration?: string; readonly bit_rate?: string }
}

function run(command: string, args: readonly string[], input: Uint8Array): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] })
    const out: Buffer[] = []
    const err: Buffer[] = []
    child.stdout.on('data', (d: Buffer) => out.push(d))
    child.stderr.on('data', (d: Buffer) => err.push(d))
    child.stdin.on('error', () => {}) // ffprobe may stop reading early
    child.on('error', reject)
    child.on('close', (code) => {
      if (code === 0) resolve(Buffer.concat(out))
      else reject(new Error(`${command} exited ${code}: ${Buffer.concat(err).toString().slice(0, 500)}`))
    })
    child.stdin.end(input)
  })
}

export async function ffprobe(bytes: Uint8Array, inputArgs: readonly string[] = []): Promise<ProbeResult> {
  const args = ['-v', 'error', ...inputArgs, '-show_streams', '-show_format', '-of', 'json', '-i', 'pipe:0']
  const out = await run('ffprobe', args, bytes)
  return JSON.parse(out.toString()) as ProbeResult
}

/** Decodes with ffmpeg to mono float at the stream's own rate (or `rate`). */
export async function ffmpegDecode(
  bytes: Uint8Array,
  inputArgs: readonly string[] = [],
  rate?: number,
): Promise<Float32Array> {
  const rateArgs = rate ? ['-ar', String(rate)] : []
  const args = ['-v', 'error', ...inputArgs, '-i', 'pipe:0', '-f', 'f32le', '-ac', '1', ...rateArgs, 'pipe:1']
  const out = await run('ffmpeg', args, bytes)
  return new Float32Array(out.buffer.slice(out.byteOffset, out.byteOffset + out.byteLength))
}

/**
 * Encodes `input` (any format ffmpeg reads) to a file named `*.ext` and returns its bytes; a real file,
 * not a pipe, so muxers that seek (MP4) write their normal layout.
 */
export async function ffmpegEncode(
  input: Uint8Array,
  ext: string,
  outputArgs: readonly string[],
): Promise<Uint8Array> {
  const dir = await mkdtemp(join(tmpdir(), 'parla-audio-'))
  try {
    const path = join(dir, `out.${ext}`)
    await run('ffmpeg', ['-v', 'error', '-i', 'pipe:0', ...outputArgs, '-y', path], input)
    return new Uint8Array(await readFile(path))
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/** Deterministic PRNG (mulberry32) so "random" tests are reproducible. */
export function prng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

export function sine(freq: number, seconds: number, rate: number, amplitude = 0.5): Float32Array {
  const out = new Float32Array(Math.round(seconds * rate))
  for (let i = 0; i < out.length; i++) out[i] = amplitude * Math.sin((2 * Math.PI * freq * i) / rate)
  return out
}

/** Exponential sweep from `f0` to `f1` Hz. */
export function sweep(f0: number, f1: number, seconds: number, rate: number, amplitude = 0.5): Float32Array {
  const out = new Float32Array(Math.round(seconds * rate))
  const k = Math.log(f1 / f0)
  for (let i = 0; i < out.length; i++) {
    const t = i / rate
    out[i] = amplitude * Math.sin(((2 * Math.PI * f0 * seconds) / k) * (Math.exp((k * t) / seconds) - 1))
  }
  return out
}

/**
 * Speech-like bursts: 120-250 ms "syllables" of a harmonic voice with a wandering pitch and a few formant-ish
 * partials, separated by short pauses, with noise "consonants".
 */
export function speechLike(seconds: number, rate: number, seed = 1): Float32Array {
  const random = prng(seed)
  const out = new Float32Array(Math.round(seconds * rate))
  let i = 0
  let phase = 0
  while (i < out.length) {
    const syllable = Math.round((0.12 + 0.13 * random()) * rate)
    const pitch = 100 + 120 * random()
    for (let j = 0; j < syllable && i < out.length; j++, i++) {
      const env = Math.sin((Math.PI * j) / syllable)
      phase += (2 * Math.PI * pitch * (1 + 0.05 * Math.sin(j / 2000))) / rate
      let v = 0
      for (let h = 1; h <= 8; h++) v += Math.sin(h * phase) / h
      out[i] = 0.25 * env * v + (j < syllable / 8 ? 0.05 * (random() * 2 - 1) : 0)
    }
    i += Math.round((0.03 + 0.08 * random()) * rate) // pause
  }
  return out
}

/** Frequency of a clean tone from its zero crossings. */
export function zeroCrossingFrequency(samples: Float32Array, rate: number): number {
  let crossings = 0
  let first = -1
  let last = -1
  for (let i = 1; i < samples.length; i++) {
    if (samples[i - 1]! < 0 && samples[i]! >= 0) {
      crossings++
      if (first < 0) first = i
      last = i
    }
  }
  return crossings > 1 ? ((crossings - 1) * rate) / (last - first) : 0
}

export function maxJump(samples: Float32Array): number {
  let max = 0
  for (let i = 1; i < samples.length; i++) max = Math.max(max, Math.abs(samples[i]! - samples[i - 1]!))
  return max
}

export { concatBytes } from '../../src/audio/signal.js'

/** Splits `samples` into irregular blocks (1 sample up to `max`), as a streaming engine would deliver them. */
export function irregularBlocks(samples: Float32Array, seed: number, max = 6000): Float32Array[] {
  const random = prng(seed)
  const blocks: Float32Array[] = []
  for (let i = 0; i < samples.length; ) {
    const n = random() < 0.1 ? 1 + Math.floor(random() * 10) : 1 + Math.floor(random() * max)
    blocks.push(samples.subarray(i, Math.min(samples.length, i + n)))
    i += n
  }
  return blocks
}

/**
 * Best normalized correlation of `x` against `ref` over lags 0..maxLag (x delayed), measured on `ref`'s
 * window [from, from + length). 1 means the same waveform; codecs that keep the waveform score above 0.9.
 */
export function bestCorrelation(
  ref: Float32Array,
  x: Float32Array,
  from: number,
  length: number,
  maxLag: number,
): { lag: number; r: number } {
  let best = { lag: 0, r: -1 }
  for (let lag = 0; lag <= maxLag; lag++) {
    let sxy = 0
    let sxx = 0
    let syy = 0
    for (let i = from; i < from + length && i + lag < x.length; i++) {
      const a = ref[i]!
      const b = x[i + lag]!
      sxy += a * b
      sxx += a * a
      syy += b * b
    }
    const r = sxy / Math.sqrt(sxx * syy || 1)
    if (r > best.r) best = { lag, r }
  }
  return best
}

/**
 * CPU milliseconds `fn` takes (best of `runs`). CPU time, not wall time: the suite runs files in parallel
 * and spawns ffmpeg, so wall-clock speed checks would fail on a busy machine for reasons unrelated to code.
 */
export function cpuMs(fn: () => void, runs = 3): number {
  let best = Infinity
  for (let i = 0; i < runs; i++) {
    const before = process.cpuUsage()
    fn()
    const used = process.cpuUsage(before)
    best = Math.min(best, (used.user + used.system) / 1000)
  }
  return best
}
