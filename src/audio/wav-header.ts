/**
 * RIFF/WAVE header checks done before handing a WAV to the decoder, so that damaged or hostile headers
 * (zero channels, absurd rates, a missing data chunk) get a precise message instead of an empty result.
 */
export interface WavInfo {
  readonly codec: number
  readonly channels: number
  readonly sampleRate: number
  readonly bitsPerSample: number
  readonly blockAlign: number
  readonly dataOffset: number
  /** Bytes of sample data actually present (the declared size may be a streaming placeholder). */
  readonly dataBytes: number
}

const CODEC_NAMES: Readonly<Record<number, string>> = {
  0x0002: 'MS ADPCM',
  0x0011: 'IMA ADPCM',
  0x0031: 'GSM 6.10',
  0x0050: 'MPEG',
  0x0055: 'MPEG Layer 3',
  0x0161: 'WMA',
}

/** Codec tag -> bit depths the decoder handles. */
const SUPPORTED: Readonly<Record<number, readonly number[]>> = {
  0x0001: [8, 16, 24, 32], // integer PCM
  0x0003: [32, 64], // IEEE float
  0x0006: [8], // A-law
  0x0007: [8], // mu-law
  0x0002: [4], // MS ADPCM
  0x0011: [4], // IMA ADPCM
}

const ascii = (b: Uint8Array, at: number): string =>
  String.fromCharCode(b[at]!, b[at + 1]!, b[at + 2]!, b[at + 3]!)

/**
 * Returns the header, or a sentence saying what is wrong with it. `allowEmpty`: a data chunk with no
 * samples is fine (an engine's output for text with nothing to say).
 */
export function parseWavHeader(bytes: Uint8Array, options: { readonly allowEmpty?: boolean } = {}): WavInfo | string {
  if (bytes.length < 12 || ascii(bytes, 0) !== 'RIFF' || ascii(bytes, 8) !== 'WAVE') {
    return 'it is not a RIFF/WAVE file'
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  let fmt: WavFormat | undefined
  let pos = 12
  while (pos + 8 <= bytes.length) {
    const id = ascii(bytes, pos)
    const size = view.getUint32(pos + 4, true)
    if (id === 'fmt ') {
      if (size < 16 || pos + 8 + 16 > bytes.length) return 'its fmt chunk is truncated'
      let codec = view.getUint16(pos + 8, true)
      if (codec === 0xfffe) {
        if (size < 40 || pos + 8 + 26 > bytes.length) return 'its extensible fmt chunk is truncated'
        codec = view.getUint16(pos + 8 + 24, true)
      }
      fmt = {
        codec,
        channels: view.getUint16(pos + 10, true),
        sampleRate: view.getUint32(pos + 12, true),
        blockAlign: view.getUint16(pos + 20, true),
        bitsPerSample: view.getUint16(pos + 22, true),
      }
    } else if (id === 'data') {
      if (!fmt) return 'its data chunk comes before the fmt chunk, or there is no fmt chunk'
      return checkFormat(fmt, pos + 8, Math.min(size, bytes.length - pos - 8), options.allowEmpty ?? false)
    }
    // The decoder walks chunks without RIFF's pad byte; odd sizes before `data` are rare enough to ignore.
    pos += 8 + size
  }
  return fmt ? 'it has no data chunk (the file may be truncated)' : 'it has no fmt chunk'
}

type WavFormat = Omit<WavInfo, 'dataOffset' | 'dataBytes'>

function checkFormat(fmt: WavFormat, dataOffset: number, dataBytes: number, allowEmpty: boolean): WavInfo | string {
  const depths = SUPPORTED[fmt.codec]
  if (!depths) {
    const name = CODEC_NAMES[fmt.codec] ?? `codec 0x${fmt.codec.toString(16).padStart(4, '0')}`
    return `it is a WAV with ${name} data, which is not supported (use PCM, float, A-law or mu-law WAV)`
  }
  if (fmt.channels < 1 || fmt.channels > 32) return `its header claims ${fmt.channels} channels`
  if (fmt.sampleRate < 1000 || fmt.sampleRate > 384_000) {
    return `its header claims a sample rate of ${fmt.sampleRate} Hz`
  }
  if (!depths.includes(fmt.bitsPerSample)) return `its header claims ${fmt.bitsPerSample} bits per sample`
  const adpcm = fmt.codec === 0x0002 || fmt.codec === 0x0011
  if (!adpcm && fmt.blockAlign !== (fmt.channels * fmt.bitsPerSample) / 8) {
    const expected = `${fmt.channels} channels of ${fmt.bitsPerSample} bits`
    return `its block size ${fmt.blockAlign} does not match ${expected}`
  }
  if (fmt.blockAlign === 0 || (!allowEmpty && dataBytes < fmt.blockAlign)) return 'it holds no audio samples'
  return { ...fmt, dataOffset, dataBytes }
}

/**
 * The samples of a 16-bit PCM mono WAV (what the engines and Parla's own WAV writer produce), or a sentence
 * saying why the file is not one. Other WAVs go through `decodeAudio`.
 */
export function readPcm16Wav(bytes: Uint8Array): { samples: Float32Array; sampleRate: number } | string {
  const wav = parseWavHeader(bytes, { allowEmpty: true })
  if (typeof wav === 'string') return wav
  if (wav.codec !== 0x0001 || wav.channels !== 1 || wav.bitsPerSample !== 16) {
    return `it is codec ${wav.codec}, ${wav.channels} channels, ${wav.bitsPerSample} bits; expected 16-bit PCM mono`
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset + wav.dataOffset, wav.dataBytes)
  const samples = new Float32Array(Math.floor(wav.dataBytes / 2))
  for (let i = 0; i < samples.length; i++) samples[i] = view.getInt16(2 * i, true) / 32768
  return { samples, sampleRate: wav.sampleRate }
}
