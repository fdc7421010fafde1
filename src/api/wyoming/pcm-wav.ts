/**
 * Raw PCM as a WAV file, so audio that arrived as Wyoming chunks goes through the same ASR service (decoding,
 * limits, queue) as an upload. `width` is bytes per sample, as Wyoming states it.
 */
export function pcmAsWav(pcm: Uint8Array, rate: number, width: number, channels: number): Uint8Array {
  const out = new Uint8Array(44 + pcm.length)
  const view = new DataView(out.buffer)
  const ascii = (at: number, s: string) => [...s].forEach((c, i) => (out[at + i] = c.charCodeAt(0)))
  ascii(0, 'RIFF')
  view.setUint32(4, 36 + pcm.length, true)
  ascii(8, 'WAVE')
  ascii(12, 'fmt ')
  view.setUint32(16, 16, true)
  view.setUint16(20, 1, true) // integer PCM
  view.setUint16(22, channels, true)
  view.setUint32(24, rate, true)
  view.setUint32(28, rate * width * channels, true)
  view.setUint16(32, width * channels, true)
  view.setUint16(34, width * 8, true)
  ascii(36, 'data')
  view.setUint32(40, pcm.length, true)
  out.set(pcm, 44)
  return out
}
