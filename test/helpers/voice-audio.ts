import { wavFile } from '../../src/audio/encoders/wav.js'
/**
 * Synthetic voice samples for `/model` tests: a vowel-like harmonic signal (glottal pulse train shaped by
 * three formants) in syllables with short pauses, so it looks like speech to the level checks.
 */
export interface VoiceOptions {
  readonly seconds?: number
  readonly sampleRate?: number
  readonly channels?: number
  /** Fundamental frequency, Hz. */
  readonly f0?: number
  /** Peak amplitude, 0..1 (above 1 clips). */
  readonly amplitude?: number
  /** Syllables with pauses (true) or one continuous vowel (false). */
  readonly syllables?: boolean
}

export function voiceSamples(o: VoiceOptions = {}): Float32Array {
  const rate = o.sampleRate ?? 16000
  const n = Math.round((o.seconds ?? 2) * rate)
  const f0 = o.f0 ?? 140
  const amp = o.amplitude ?? 0.5
  const formants = [
    [700, 1],
    [1200, 0.5],
    [2600, 0.25],
  ] as const
  const out = new Float32Array(n)
  let peak = 0
  for (let i = 0; i < n; i++) {
    const t = i / rate
    const vibrato = 1 + 0.02 * Math.sin(2 * Math.PI * 5 * t)
    let v = 0
    for (let h = 1; h * f0 < rate / 2 && h <= 40; h++) {
      const f = h * f0 * vibrato
      const gain = formants.reduce((g, [fc, a]) => g + a / (1 + ((f - fc) / 150) ** 2), 0) / h
      v += gain * Math.sin(2 * Math.PI * f * t)
    }
    // 250 ms syllables: 180 ms voiced with soft edges, 70 ms pause.
    const phase = (t % 0.25) / 0.18
    const env = o.syllables === false ? 1 : phase < 1 ? Math.sin(Math.PI * phase) ** 0.5 : 0
    out[i] = v * env
    peak = Math.max(peak, Math.abs(out[i]!))
  }
  const scale = peak > 0 ? amp / peak : 0
  for (let i = 0; i < n; i++) out[i] = out[i]! * scale
  return out
}

/** 16-bit PCM WAV of `samples` (duplicated to `channels`). Values beyond ±1 are clipped. */
export function wavBytes(samples: Float32Array, sampleRate = 16000, channels = 1): Uint8Array {
  return wavFile(samples, sampleRate, channels)
}

/** A speech-like WAV file. */
export function voiceWav(o: VoiceOptions = {}): Uint8Array {
  return wavBytes(voiceSamples(o), o.sampleRate ?? 16000, o.channels ?? 1)
}

/** White noise WAV at a constant level: no pauses, so it fails the SNR check. */
export function noiseWav(seconds = 2, amplitude = 0.3, sampleRate = 16000): Uint8Array {
  const s = new Float32Array(Math.round(seconds * sampleRate))
  let seed = 12345
  for (let i = 0; i < s.length; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff
    s[i] = (seed / 0x7fffffff - 0.5) * 2 * amplitude
  }
  return wavBytes(s, sampleRate)
}

/** Digital silence. */
export const silentWav = (seconds = 2, sampleRate = 16000) => wavBytes(new Float32Array(Math.round(seconds * sampleRate)), sampleRate)

/** A valid 1×1 PNG. */
export const PNG_1PX = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
)

/** A multipart/form-data body built by hand, for exact control over boundaries and parts. */
export function multipart(
  parts: readonly ({ name: string; value: string } | { name: string; filename: string; data: Uint8Array; type?: string })[],
  boundary = '----parla-test-boundary',
): { body: Buffer; contentType: string } {
  const chunks: Buffer[] = []
  for (const p of parts) {
    chunks.push(Buffer.from(`--${boundary}\r\n`))
    if ('data' in p) {
      chunks.push(Buffer.from(`Content-Disposition: form-data; name="${p.name}"; filename="${p.filename}"\r\nContent-Type: ${p.type ?? 'application/octet-stream'}\r\n\r\n`))
      chunks.push(Buffer.from(p.data))
    } else {
      chunks.push(Buffer.from(`Content-Disposition: form-data; name="${p.name}"\r\n\r\n${p.value}`))
    }
    chunks.push(Buffer.from('\r\n'))
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`))
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` }
}
