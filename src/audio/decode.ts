import { type SpeechError, invalidField, isAbortError } from '../errors.js'
import { decodeInWorker } from './decode-worker.js'
import { checkMp4Tables } from './mp4-guard.js'
import { type Sniffed, sniffAudio } from './sniff.js'
import type { CallOptions, DecodedAudio, MonoSamples } from './types.js'
import { pcm16AsIs } from './wav-direct.js'
import { parseWavHeader, type WavInfo } from './wav-header.js'
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
  /**
   * Sample rate to decode to (e.g. an engine's 16 kHz); absent means the file's own rate. Resampling happens
   * block by block while decoding, so the file is never held in full at a higher rate.
   */
  readonly targetRate?: number
  /**
   * The caller is done with `bytes`: when they fill their own buffer, it is moved to the decoder thread
   * (and detached here) instead of copied, so an upload is not held twice while it decodes.
   */
  readonly transferBytes?: boolean
  /** `int16` returns 16-bit samples (half the memory; see `MonoSamples`); default floats. */
  readonly sampleType?: 'float32' | 'int16'
}

/** What the header says about an upload that passed `inspectAudio`. */
export interface AudioInspection {
  readonly sniffed: Extract<Sniffed, { kind: 'audio' }>
  /** The format as messages name it. */
  readonly label: string
  /** From the WAV header; other formats learn it while decoding. */
  readonly channels?: number
  /** A WAV's header. */
  readonly wav?: WavInfo
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

const failWith = (options: DecodeOptions) => (msg: string): SpeechError => {
  const subject = options.name ? `file '${options.name}'` : 'the audio'
  return invalidField(options.loc ?? ['body', 'audio'], `${subject} ${msg}`)
}

/**
 * The checks that need no decoding: empty, not audio, unsupported codec, a damaged WAV or MP4 header, and a
 * WAV longer than `maxSeconds`. Cheap, so a caller can run them before queueing the upload for decoding.
 */
export function inspectAudio(bytes: Uint8Array, options: DecodeOptions = {}): AudioInspection {
  const fail = failWith(options)
  if (bytes.length === 0) throw fail('is empty')
  const sniffed = sniffAudio(bytes)
  if (sniffed.kind === 'not-audio') throw fail(`is not audio: it looks like ${sniffed.looksLike}; ${ACCEPTED}`)
  if (sniffed.kind === 'unsupported') throw fail(`is ${sniffed.what}, which is not supported; ${ACCEPTED}`)
  if (sniffed.kind === 'unknown') {
    const head = [...bytes.subarray(0, 8)].map((x) => x.toString(16).padStart(2, '0')).join(' ')
    throw fail(`is not in a recognised audio format (it starts with ${head}); ${ACCEPTED}`)
  }
  const label = LABELS[sniffed.format] ?? sniffed.format
  if (sniffed.decoder === 'm4a') {
    const problem = checkMp4Tables(bytes)
    if (problem) throw fail(`is a damaged ${label}: ${problem}`)
  }
  const flacSeconds = sniffed.format === 'flac' ? streamInfoSeconds(bytes) : undefined
  if (flacSeconds !== undefined && options.maxSeconds !== undefined && flacSeconds > options.maxSeconds) {
    throw fail(`is ${flacSeconds.toFixed(1)} s long; the limit is ${options.maxSeconds} s`)
  }
  if (sniffed.format !== 'wav') return { sniffed, label }
  const wav = parseWavHeader(bytes)
  if (typeof wav === 'string') throw fail(`is a damaged or unsupported WAV: ${wav}`)
  const seconds = wav.dataBytes / wav.blockAlign / wav.sampleRate
  if (options.maxSeconds !== undefined && seconds > options.maxSeconds) {
    throw fail(`is ${seconds.toFixed(1)} s long; the limit is ${options.maxSeconds} s`)
  }
  return { sniffed, label, channels: wav.channels, wav }
}

/**
 * Decodes an uploaded audio file to mono (at `targetRate` if given). Every failure (empty, not audio,
 * unsupported codec, damaged data, too long) is a 422 `SpeechError` on `options.loc` whose message names the
 * problem; decoder exceptions never escape as they are. A compressed file longer than `maxSeconds` is
 * rejected as soon as that much has been decoded, so memory is bounded by the limit, not by the file.
 */
export function decodeAudio(bytes: Uint8Array, options: DecodeOptions & { sampleType: 'int16' }): Promise<DecodedAudio<Int16Array>>
export function decodeAudio(bytes: Uint8Array, options?: DecodeOptions & { sampleType?: 'float32' }): Promise<DecodedAudio>
export async function decodeAudio(bytes: Uint8Array, options: DecodeOptions = {}): Promise<DecodedAudio<MonoSamples>> {
  options.signal?.throwIfAborted()
  const fail = failWith(options)
  const { sniffed, label, channels, wav } = inspectAudio(bytes, options)
  const asIs = wav && options.sampleType === 'int16' ? pcm16AsIs(bytes, wav, options.targetRate) : undefined
  if (wav && asIs) {
    return { samples: asIs, sampleRate: wav.sampleRate, channels: 1, format: 'wav', durationSec: asIs.length / wav.sampleRate }
  }
  // WebM decodes quadratically while DiscardPadding is present; it is cut here instead (see webm-padding.ts).
  const webm =
    sniffed.decoder === 'webm' || sniffed.decoder === 'mkv' ? neutralizeDiscardPadding(bytes) : undefined
  let result
  try {
    result = await decodeInWorker({
      format: sniffed.decoder,
      bytes: webm?.bytes ?? bytes,
      timeoutMs: options.timeoutMs ?? 20_000,
      // The WebM fix-up may have made a copy, which is ours to move.
      transfer: options.transferBytes === true || (webm !== undefined && webm.bytes !== bytes),
      ...(options.targetRate !== undefined && { targetRate: options.targetRate }),
      ...(options.sampleType !== undefined && { sampleType: options.sampleType }),
      ...(options.maxSeconds !== undefined && { maxSeconds: options.maxSeconds }),
      ...(options.signal && { signal: options.signal }),
    })
  } catch (err) {
    if (isAbortError(err)) throw err
    const reason = err instanceof Error ? err.message : String(err)
    throw fail(`looks like ${label} but could not be decoded (${reason}); it may be truncated or damaged`)
  }
  options.signal?.throwIfAborted()
  if (result.kind === 'too-long') {
    throw fail(`is longer than the limit of ${options.maxSeconds} s (decoding stopped at ` +
      `${result.decodedSeconds.toFixed(1)} s); split the recording and send the parts one by one`)
  }
  const { sampleRate } = result
  const discard = webm && webm.discardNs > 0 ? Math.round((webm.discardNs * sampleRate) / 1e9) : 0
  const samples = result.samples.subarray(0, Math.max(0, result.samples.length - discard))
  if (samples.length === 0) {
    throw fail(`looks like ${label} but holds no decodable audio; it may be truncated or damaged`)
  }
  return {
    samples,
    sampleRate,
    channels: channels ?? result.channels,
    format: sniffed.format,
    durationSec: samples.length / sampleRate,
  }
}

/**
 * A FLAC file's duration from its STREAMINFO block (undefined when it does not say). FLAC is decoded in one
 * piece (see decode-thread.ts), so its length is checked here, before decoding.
 */
function streamInfoSeconds(b: Uint8Array): number | undefined {
  // "fLaC", then the first metadata block's 4-byte header (type 0 = STREAMINFO), then its 34 bytes.
  if (b.length < 26 || (b[4]! & 0x7f) !== 0) return undefined
  const rate = (b[18]! << 12) | (b[19]! << 4) | (b[20]! >> 4)
  const samples = (b[21]! & 0x0f) * 2 ** 32 + ((b[22]! << 24) >>> 0) + (b[23]! << 16) + (b[24]! << 8) + b[25]!
  return rate > 0 && samples > 0 ? samples / rate : undefined
}
