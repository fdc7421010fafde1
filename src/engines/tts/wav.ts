import { readPcm16Wav } from '../../audio/wav-header.js'
import { SpeechError } from '../../errors.js'

/** Reads a mono 16-bit PCM WAV as engines write it. `component` names the engine in errors. */
export function parseWav(bytes: Uint8Array, component: string): { samples: Float32Array; sampleRate: number } {
  const wav = readPcm16Wav(bytes)
  if (typeof wav === 'string') throw new SpeechError('engine_failed', `[${component}] engine output is not usable: ${wav}`)
  return wav
}
