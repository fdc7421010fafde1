import { decode } from '@msgpack/msgpack'
import { SpeechError } from '../../errors.js'
import type { LiveRequest } from '../../services/asr/service.js'
import { DEFAULT_TURN } from '../../services/asr/live/turn-detector.js'
import { checkLiveRate } from '../../services/asr/live/input.js'

/** A client frame of `/v1/asr/live` that passed validation. */
export type AsrLiveFrame =
  | { readonly event: 'start'; readonly request: LiveRequest }
  | { readonly event: 'audio'; readonly audio: Uint8Array }
  | { readonly event: 'commit' }
  | { readonly event: 'stop' }

const isMap = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && Object.getPrototypeOf(v) === Object.prototype

const bad = (msg: string) => new SpeechError('bad_request', msg)

function optionalNumber(request: Record<string, unknown>, key: string, min: number, max: number, fallback: number): number {
  const v = request[key]
  if (v === undefined || v === null) return fallback
  if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max) throw bad(`invalid start: "${key}" must be a number from ${min} to ${max}`)
  return v
}

/** `start.request`: `sample_rate` (required), `language`, `vad` (default true), `silence_ms`, `padding_ms`, `threshold`. */
function startRequest(request: unknown): LiveRequest {
  if (!isMap(request)) throw bad('invalid start: "request" must be a map with at least "sample_rate"')
  let inputRate: number
  try {
    inputRate = checkLiveRate(request.sample_rate, '"sample_rate"')
  } catch (err) {
    throw bad(`invalid start: ${(err as Error).message}`)
  }
  if (request.format !== undefined && request.format !== 'pcm') throw bad('invalid start: "format" must be "pcm" (16-bit little-endian mono)')
  if (request.language !== undefined && request.language !== null && typeof request.language !== 'string') throw bad('invalid start: "language" must be a string such as "en"')
  if (request.vad !== undefined && typeof request.vad !== 'boolean') throw bad('invalid start: "vad" must be true or false')
  const turns = request.vad === false ? null : {
    threshold: optionalNumber(request, 'threshold', 0, 1, DEFAULT_TURN.threshold),
    silenceMs: optionalNumber(request, 'silence_ms', 0, 10_000, DEFAULT_TURN.silenceMs),
    prefixPaddingMs: optionalNumber(request, 'padding_ms', 0, 5000, DEFAULT_TURN.prefixPaddingMs),
  }
  return { inputRate, turns, ...(typeof request.language === 'string' && { language: request.language }) }
}

/** One WebSocket message as a validated frame, or a `bad_request` saying what is wrong with it. */
export function parseAsrLiveFrame(data: Buffer, isBinary: boolean): AsrLiveFrame {
  if (!isBinary) throw bad('frames must be binary MessagePack maps, not text frames')
  let frame: unknown
  try {
    frame = decode(data)
  } catch (err) {
    throw bad(`frame is not valid MessagePack: ${(err as Error).message}`)
  }
  if (!isMap(frame)) throw bad('frame must be a MessagePack map with an "event" key')
  const { event } = frame
  if (event === 'start') return { event, request: startRequest(frame.request) }
  if (event === 'audio') {
    if (!(frame.audio instanceof Uint8Array)) throw bad('audio event needs "audio" as binary 16-bit PCM')
    return { event, audio: frame.audio }
  }
  if (event === 'commit' || event === 'stop') return { event }
  const name = JSON.stringify(event) ?? 'undefined'
  throw bad(`unknown event ${name.slice(0, 80)}; send start, audio, commit or stop`)
}
