import { SpeechError } from '../../errors.js'

/** Reads a mono 16-bit PCM RIFF/WAVE file as engines write it. `component` names the engine in errors. */
export function parseWav(bytes: Uint8Array, component: string): { samples: Float32Array; sampleRate: number } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const tag = (at: number): string => String.fromCharCode(...bytes.subarray(at, at + 4))
  if (bytes.length < 12 || tag(0) !== 'RIFF' || tag(8) !== 'WAVE') {
    throw new SpeechError('engine_failed', `[${component}] engine output is not a WAV file`)
  }
  let sampleRate = 0
  let offset = 12
  while (offset + 8 <= bytes.length) {
    const id = tag(offset)
    const size = view.getUint32(offset + 4, true)
    const body = offset + 8
    if (id === 'fmt ') {
      const format = view.getUint16(body, true)
      const channels = view.getUint16(body + 2, true)
      const bits = view.getUint16(body + 14, true)
      if (format !== 1 || channels !== 1 || bits !== 16) {
        const what = `${format}/${channels}ch/${bits}bit`
        throw new SpeechError('engine_failed', `[${component}] unexpected WAV format ${what}`)
      }
      sampleRate = view.getUint32(body + 4, true)
    } else if (id === 'data') {
      if (!sampleRate) break
      const count = Math.floor(Math.min(size, bytes.length - body) / 2)
      const samples = new Float32Array(count)
      for (let i = 0; i < count; i++) samples[i] = view.getInt16(body + 2 * i, true) / 32768
      return { samples, sampleRate }
    }
    offset = body + size + (size & 1)
  }
  throw new SpeechError('engine_failed', `[${component}] engine output has no audio data`)
}
