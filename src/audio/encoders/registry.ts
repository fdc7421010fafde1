import { invalidField } from '../../errors.js'
import type { AudioEncoder, AudioFormat } from '../types.js'
import { aacEncoder, flacEncoder } from './ffmpeg-stream.js'
import { mp3Encoder } from './mp3.js'
import { oggOpusEncoder } from './ogg-opus.js'
import { pcmEncoder } from './pcm.js'
import { wavEncoder } from './wav.js'

const ENCODERS = {
  wav: wavEncoder,
  pcm: pcmEncoder,
  mp3: mp3Encoder,
  opus: oggOpusEncoder,
  // Streamed through a child ffmpeg (`output`), offered on the OpenAI surface only.
  aac: aacEncoder,
  flac: flacEncoder,
} as const satisfies Record<AudioFormat, AudioEncoder>

export const AUDIO_FORMATS = Object.keys(ENCODERS) as readonly AudioFormat[]

export function getEncoder(format: AudioFormat): AudioEncoder {
  const encoder = (ENCODERS as Record<string, AudioEncoder | undefined>)[format]
  if (!encoder) throw invalidField(['body', 'format'], `[audio] no encoder for format '${String(format)}'`)
  return encoder
}

/**
 * The rate to encode at: the requested one when the format can carry it, else the format's default
 * (the pipeline resamples to it). `null`/`undefined` means "the format's default", as in the API.
 */
export function outputSampleRate(encoder: AudioEncoder, requested?: number | null): number {
  if (requested === undefined || requested === null) return encoder.defaultSampleRate
  if (encoder.sampleRates && !encoder.sampleRates.includes(requested)) return encoder.defaultSampleRate
  return requested
}
