import type { AudioEncoder, EncoderOptions, EncoderSession } from '../types.js'
import { concatBytes } from '../signal.js'
import { assertSampleRate, toS16le } from './s16le.js'

/**
 * Size fields of a header written before the length is known. 0xFFFFFFFF ("as long as the stream") is what
 * ffmpeg, browsers and OpenAI-style servers read as "until EOF"; 0 makes some players stop at once.
 */
const UNKNOWN_SIZE = 0xffffffff

/** The 44-byte canonical RIFF/WAVE header for 16-bit PCM mono with unknown sizes. */
export const wavStreamHeader = (sampleRate: number): Uint8Array => wavHeader(sampleRate)

/**
 * The 44-byte canonical RIFF/WAVE header for 16-bit PCM: `dataBytes` of interleaved samples, or unknown
 * sizes (a stream) when absent.
 */
export function wavHeader(sampleRate: number, dataBytes?: number, channels = 1): Uint8Array {
  const header = new Uint8Array(44)
  const view = new DataView(header.buffer)
  const ascii = (offset: number, text: string): void => {
    for (let i = 0; i < text.length; i++) header[offset + i] = text.charCodeAt(i)
  }
  ascii(0, 'RIFF')
  view.setUint32(4, dataBytes === undefined ? UNKNOWN_SIZE : 36 + dataBytes, true)
  ascii(8, 'WAVE')
  ascii(12, 'fmt ')
  view.setUint32(16, 16, true)
  view.setUint16(20, 1, true) // PCM
  view.setUint16(22, channels, true)
  view.setUint32(24, sampleRate, true)
  view.setUint32(28, sampleRate * 2 * channels, true) // byte rate
  view.setUint16(32, 2 * channels, true) // block align
  view.setUint16(34, 16, true) // bits per sample
  ascii(36, 'data')
  view.setUint32(40, dataBytes ?? UNKNOWN_SIZE, true)
  return header
}

/** A whole 16-bit PCM WAV file of `samples`, the same samples on each of `channels`. */
export function wavFile(samples: Float32Array, sampleRate: number, channels = 1): Uint8Array {
  const mono = toS16le(samples)
  const data = new Uint8Array(mono.length * channels)
  for (let i = 0; i < samples.length; i++) {
    for (let c = 0; c < channels; c++) data.set(mono.subarray(2 * i, 2 * i + 2), 2 * (i * channels + c))
  }
  return concatBytes([wavHeader(sampleRate, data.length, channels), data])
}

export const wavEncoder: AudioEncoder = {
  format: 'wav',
  contentType: 'audio/wav',
  defaultSampleRate: 44100,
  create(options: EncoderOptions): EncoderSession {
    assertSampleRate('wav', options.sampleRate)
    let headerSent = false
    // The header goes out with the first bytes so a client can start playing immediately.
    const withHeader = (data: Uint8Array): Uint8Array => {
      if (headerSent) return data
      headerSent = true
      return concatBytes([wavStreamHeader(options.sampleRate), data])
    }
    return {
      push: (samples) => withHeader(toS16le(samples)),
      end: () => withHeader(new Uint8Array(0)),
    }
  },
}
