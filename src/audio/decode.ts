import { type SpeechError, invalidField, isAbortError } from '../errors.js'
import { type RawAudio, decodeInWorker } from './decode-worker.js'
import { checkMp4Tables } from './mp4-guard.js'
import { resampleAll } from './resample.js'
import { sniffAudio } from './sniff.js'
import type { CallOptions, DecodedAudio } from './types.js'
import { parseWavHeader } from './wav-header.js'
import { neutralizeDiscardPadding } from './webm-padding.js'

export interface DecodeOptions extends CallOptions {
  /** The uploaded file's name, quoted in error messages. */
  readonly name?: string
  /** Where the bytes came from, for the 422 `loc`; default `['body', 'audio']`. */
  readonly loc?: readonly string[]
  /** Longest accepted audio in seconds; longer uploads fail with a 422. */
  readonly maxSeconds?: number
  /** Gives up on a decoder that has not finished after this long (default 20 s); its worker is killed. */
  readonly timeoutMs?: number
}

const ACCEPTED = 'send WAV, MP3, Ogg Opus/Vorbis, FLAC or M4A'

/** How messages name each sniffed format. */
const LABELS: Readonly<Record<string, string>> = {
  wav: 'WAV',
  mp3: 'MP3',
  'ogg-opus': 'Ogg Opus',
  'ogg-vorbis': 'Ogg Vorbis',
  'ogg-flac': 'Ogg FLAC',
  flac: 'FLAC',
  m4a: 'M4A',
  mp4: 'MP4',
  mov: 'QuickTime',
  aac: 'AAC',
  webm: 'WebM',
  mkv: 'Matroska',
  aiff: 'AIFF',
  caf: 'CAF',
}

/**
 * Decodes an uploaded audio file to mono. Every failure (empty, not audio, unsupported codec, damaged data,
 * too long) is a 422 `SpeechError` on `options.loc` whose message names the problem; decoder exceptions
 * never escape as they are.
 */
export async function decodeAudio(bytes: Uint8Array, options: DecodeOptions = {}): Promise<DecodedAudio> {
  const loc = options.loc ?? ['body', 'audio']
  const subject = options.name ? `file '${options.name}'` : 'the audio'
  const fail = (msg: string): SpeechError => invalidField(loc, `${subject} ${msg}`)
  options.signal?.throwIfAborted()

  if (bytes.length === 0) throw fail('is empty')
  const sniffed = sniffAudio(bytes)
  if (sniffed.kind === 'not-audio') throw fail(`is not audio: it looks like ${sniffed.looksLike}; ${ACCEPTED}`)
  if (sniffed.kind === 'unsupported') throw fail(`is ${sniffed.what}, which is not supported; ${ACCEPTED}`)
  if (sniffed.kind === 'unknown') {
    const head = [...bytes.subarray(0, 8)].map((x) => x.toString(16).padStart(2, '0')).join(' ')
    throw fail(`is not in a recognised audio format (it starts with ${head}); ${ACCEPTED}`)
  }
  const label = LABELS[sniffed.format] ?? sniffed.format
  let channels: number | undefined
  if (sniffed.format === 'wav') {
    const wav = parseWavHeader(bytes)
    if (typeof wav === 'string') throw fail(`is a damaged or unsupported WAV: ${wav}`)
    channels = wav.channels
    const seconds = wav.dataBytes / wav.blockAlign / wav.sampleRate
    if (options.maxSeconds !== undefined && seconds > options.maxSeconds) {
      throw tooLong(fail, seconds, options.maxSeconds)
    }
  }
  if (sniffed.decoder === 'm4a') {
    const problem = checkMp4Tables(bytes)
    if (problem) throw fail(`is a damaged ${label}: ${problem}`)
  }

  let data: RawAudio
  // WebM decodes quadratically while DiscardPadding is present; it is cut here instead (see webm-padding.ts).
  const webm = sniffed.decoder === 'webm' || sniffed.decoder === 'mkv' ? neutralizeDiscardPadding(bytes) : undefined
  try {
    data = await decodeInWorker(sniffed.decoder, webm?.bytes ?? bytes, options.timeoutMs ?? 20_000, options.signal)
    if (webm && webm.discardNs > 0) data = trimEnd(data, Math.round((webm.discardNs * data.sampleRate) / 1e9))
  } catch (err) {
    if (isAbortError(err)) throw err
    const reason = err instanceof Error ? err.message : String(err)
    throw fail(`looks like ${label} but could not be decoded (${reason}); it may be truncated or damaged`)
  }
  options.signal?.throwIfAborted()
  const length = data.channelData[0]?.length ?? 0
  if (length === 0 || !(data.sampleRate >= 1000 && data.sampleRate <= 384_000)) {
    throw fail(`looks like ${label} but holds no decodable audio; it may be truncated or damaged`)
  }
  const durationSec = length / data.sampleRate
  if (options.maxSeconds !== undefined && durationSec > options.maxSeconds) {
    throw tooLong(fail, durationSec, options.maxSeconds)
  }
  return {
    samples: downmix(data.channelData, length),
    sampleRate: data.sampleRate,
    channels: channels ?? data.channelData.length,
    format: sniffed.format,
    durationSec,
  }
}

/** `decodeAudio`, then resampled to `targetRate` (for engines that need e.g. 16 kHz). */
export async function decodeAndResample(
  bytes: Uint8Array,
  targetRate: number,
  options: DecodeOptions = {},
): Promise<DecodedAudio> {
  const decoded = await decodeAudio(bytes, options)
  if (decoded.sampleRate === targetRate) return decoded
  const samples = resampleAll(decoded.samples, decoded.sampleRate, targetRate)
  return { ...decoded, samples, sampleRate: targetRate, durationSec: samples.length / targetRate }
}

function tooLong(fail: (msg: string) => SpeechError, seconds: number, max: number): SpeechError {
  return fail(`is ${seconds.toFixed(1)} s long; the limit is ${max} s`)
}

function trimEnd(data: RawAudio, samples: number): RawAudio {
  const keep = Math.max(0, (data.channelData[0]?.length ?? 0) - samples)
  return { ...data, channelData: data.channelData.map((c) => c.subarray(0, keep)) }
}

/** Averages the channels; non-finite values (broken float WAVs) become 0 and peaks are clamped. */
function downmix(channels: readonly Float32Array[], length: number): Float32Array {
  const out = new Float32Array(length)
  const scale = 1 / channels.length
  for (const ch of channels) for (let i = 0; i < length; i++) out[i]! += (ch[i] ?? 0) * scale
  for (let i = 0; i < length; i++) {
    const v = out[i]!
    out[i] = Number.isFinite(v) ? Math.max(-1, Math.min(1, v)) : 0
  }
  return out
}
