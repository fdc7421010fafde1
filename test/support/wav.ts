/** WAV for tests, through Parla's own reader and writer (src/audio/wav-header.ts, src/audio/encoders/wav.ts). */
import { wavFile } from '../../src/audio/encoders/wav.js'
import type { AudioBuffer } from '../../src/audio/types.js'
import { readPcm16Wav } from '../../src/audio/wav-header.js'

/** Reads a 16-bit PCM mono WAV (what text2wave and Parla write). */
export function parseWav(bytes: Uint8Array): AudioBuffer {
  const wav = readPcm16Wav(bytes)
  if (typeof wav === 'string') throw new Error(`not a 16-bit PCM mono WAV: ${wav}`)
  return wav
}

/** 16-bit PCM mono WAV bytes. */
export const toWav = (samples: Float32Array, sampleRate: number): Uint8Array => wavFile(samples, sampleRate)
