import { decode } from '@msgpack/msgpack'
import { SpeechError } from '../../errors.js'
import { compileBodyValidator } from '../validators.js'
import { TtsRequestBody } from './tts-schemas.js'

/** A client frame of `/v1/tts/live` that passed validation (fish-compat §6.2). */
export type LiveFrame =
  | { readonly event: 'start'; readonly request: TtsRequestBody; readonly debug: boolean }
  | { readonly event: 'text'; readonly text: string }
  | { readonly event: 'flush' }
  | { readonly event: 'stop' }

const validateRequest = compileBodyValidator(TtsRequestBody)

/** A MessagePack map decodes to a plain object; arrays, bins (Uint8Array) and extension values are not maps. */
const isMap = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && Object.getPrototypeOf(v) === Object.prototype

/**
 * One WebSocket message as a validated frame, or a `bad_request` saying what is wrong with it. Unknown keys
 * are ignored, in the frame and in `start.request`, as `/v1/tts` ignores unknown body fields.
 */
export function parseLiveFrame(data: Buffer, isBinary: boolean): LiveFrame {
  if (!isBinary) throw new SpeechError('bad_request', 'frames must be binary MessagePack maps, not text frames')
  let frame: unknown
  try {
    frame = decode(data)
  } catch (err) {
    throw new SpeechError('bad_request', `frame is not valid MessagePack: ${(err as Error).message}`)
  }
  if (!isMap(frame)) throw new SpeechError('bad_request', 'frame must be a MessagePack map with an "event" key')
  const { event } = frame
  if (event === 'start') {
    const request = startRequest(frame.request)
    return { event, request, debug: debugFlag(frame.debug) || debugFlag((request as { debug?: unknown }).debug) }
  }
  if (event === 'text') {
    if (typeof frame.text !== 'string') throw new SpeechError('bad_request', 'text event needs "text" as a string')
    return { event, text: frame.text }
  }
  if (event === 'flush' || event === 'stop') return { event }
  const name = JSON.stringify(event) ?? 'undefined'
  throw new SpeechError('bad_request', `unknown event ${name.slice(0, 80)}; send start, text, flush or stop`)
}

/**
 * Fish's `debug` on `start` (beside `request`, or inside it): the server then sends `log` frames, here how the
 * text's language was decided. Absent means off.
 */
function debugFlag(value: unknown): boolean {
  if (value === undefined || value === null) return false
  if (typeof value !== 'boolean') throw new SpeechError('bad_request', 'invalid start: "debug" must be true or false')
  return value
}

/** `start.request` is the `/v1/tts` body with `text` optional (text usually follows in `text` frames). */
function startRequest(request: unknown): TtsRequestBody {
  if (!isMap(request)) {
    const got = request === undefined ? 'nothing' : request === null ? 'nil' : Array.isArray(request) ? 'an array' : request instanceof Uint8Array ? 'binary data' : typeof request
    throw new SpeechError('bad_request', `invalid start request: "request" must be a map of TTS options (as the /v1/tts body), got ${got}`)
  }
  const body = { text: '', ...request }
  const issues = validateRequest(body)
  if (issues.length > 0) {
    const what = issues.map((i) => `${i.loc.slice(1).join('.') || 'request'}: ${i.msg}`).join('; ')
    throw new SpeechError('bad_request', `invalid start request: ${what}`)
  }
  return body as TtsRequestBody
}

/** What a plain GET of the WebSocket route gets: 426, naming how to connect. */
export const notUpgraded = () =>
  new SpeechError('upgrade_required',
    'GET /v1/tts/live is a WebSocket endpoint: connect with a WebSocket client (ws:// or wss:// URL, ' +
      "'Connection: Upgrade', 'Upgrade: websocket', 'Sec-WebSocket-Version: 13', 'Authorization: Bearer <API key>'), " +
      'then send binary MessagePack frames: start, text, flush, stop')
