import type { Deps } from '../../deps.js'
import { SpeechError } from '../../errors.js'
import { pcmAsWav } from './pcm-wav.js'

/** Audio received between `audio-start` and `audio-stop`, with the format `audio-start` declared. */
export interface IncomingAudio {
  readonly rate: number
  readonly width: number
  readonly channels: number
  readonly chunks: Uint8Array[]
  bytes: number
}

/** `audio-start`'s format, checked: Parla takes 16-bit PCM at 8-48 kHz, mono or stereo. */
export function startAudio(data: Record<string, unknown>): IncomingAudio {
  const { rate, width, channels } = data
  if (!Number.isInteger(rate) || (rate as number) < 8000 || (rate as number) > 48000) {
    throw new SpeechError('bad_request', `audio-start: "rate" must be an integer from 8000 to 48000 Hz, got ${JSON.stringify(rate)}`)
  }
  if (width !== 2) throw new SpeechError('bad_request', `audio-start: "width" must be 2 (16-bit samples), got ${JSON.stringify(width)}`)
  if (channels !== 1 && channels !== 2) throw new SpeechError('bad_request', `audio-start: "channels" must be 1 or 2, got ${JSON.stringify(channels)}`)
  return { rate: rate as number, width: 2, channels: channels as number, chunks: [], bytes: 0 }
}

/** Adds one chunk, refusing audio past the ASR upload limit. */
export function addChunk(audio: IncomingAudio, payload: Uint8Array | undefined, maxBytes: number): void {
  if (!payload || payload.length === 0) return
  if (audio.bytes + payload.length > maxBytes) {
    throw new SpeechError('payload_too_large', `audio is longer than the ${maxBytes}-byte limit; send shorter utterances`)
  }
  audio.chunks.push(payload)
  audio.bytes += payload.length
}

/**
 * The utterance through the ASR service (decoding, limits and queue shared with `/v1/asr`). Voice commands
 * are often shorter than the service's one-second minimum, so the audio is padded with silence to a second.
 * `placeHeld`: the utterance holds its place in the recognition line already (`AsrService.reserve`).
 */
export async function transcribeAudio(deps: Deps, audio: IncomingAudio, language: string | undefined, signal: AbortSignal, placeHeld = false) {
  const frame = audio.width * audio.channels
  const pcm = Buffer.concat(audio.chunks).subarray(0, Math.floor(audio.bytes / frame) * frame)
  const padded = Buffer.concat([pcm, Buffer.alloc(Math.max(0, audio.rate * frame - pcm.length))])
  const result = await deps.asr.transcribe({
    audio: pcmAsWav(padded, audio.rate, audio.width, audio.channels),
    filename: 'wyoming.wav',
    ...(language && { language }),
  }, signal, placeHeld)
  return { text: result.text, language: result.language }
}
