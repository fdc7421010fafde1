/**
 * Audio inside Parla is mono Float32 samples in [-1, 1] at a known sample rate. Engines convert their
 * native output once; every DSP step, resampler and encoder takes and gives this shape.
 */
export interface CallOptions {
  readonly signal?: AbortSignal
  /**
   * When the caller needs the first result, as a `performance.now()` time. Work that waits for a shared
   * resource (an engine process) is served earliest deadline first; absent means "now".
   */
  readonly deadline?: number
  /**
   * `false`: the caller ignores word timings (a plain audio response), so an engine that finds them after
   * the audio (forced alignment) skips that work. Absent: wanted.
   */
  readonly words?: boolean
}

/**
 * Mono samples as floats in [-1, 1], or as 16-bit integers: half the memory, which is how speech recognition
 * keeps a long upload (an hour at 16 kHz: 115 MB instead of 230 MB) and what its decoder reads anyway.
 */
export type MonoSamples = Float32Array | Int16Array

/** A block of mono audio. */
export interface AudioBuffer {
  readonly samples: Float32Array
  readonly sampleRate: number
}

/** `aac` and `flac` are offered on the OpenAI surface only (the Fish spec lists the other four). */
export type AudioFormat = 'wav' | 'pcm' | 'mp3' | 'opus' | 'aac' | 'flac'

export interface EncoderOptions {
  /** Sample rate of the samples that will be pushed, which is also the output rate. */
  readonly sampleRate: number
  /** Bits per second for lossy formats; `undefined` means the format's default. Opus: -1000 = automatic. */
  readonly bitrate?: number
}

/**
 * A streaming encoder for one response. `push` returns whatever bytes are complete so far (possibly
 * empty), so the caller can send them at once; `end` flushes the rest. Sessions are cheap and single-use.
 */
export interface EncoderSession {
  push(samples: Float32Array): Uint8Array
  end(): Uint8Array
  /**
   * Encoders that run beside the request (a child process) return empty arrays from `push`/`end` and give
   * their bytes here as they come out; the iterable ends after `end` once everything is flushed, and
   * `return()` on it stops the encoder. Absent for in-process encoders.
   */
  readonly output?: AsyncIterable<Uint8Array>
}

export interface AudioEncoder {
  readonly format: AudioFormat
  readonly contentType: string
  /** Sample rates the format can carry; the pipeline resamples to `defaultSampleRate` when the request's rate is not listed. */
  readonly sampleRates?: readonly number[]
  readonly defaultSampleRate: number
  /**
   * Samples a decoder outputs before the first pushed sample (codec priming it is not told to drop).
   * Timestamps of the audio add it. Absent means 0.
   */
  readonly delaySamples?: number
  create(options: EncoderOptions): EncoderSession
}

/** A streaming sample-rate converter; keeps state across blocks so joins are seamless. */
export interface Resampler {
  readonly inputRate: number
  readonly outputRate: number
  process(samples: Float32Array): Float32Array
  /** Returns the tail held back for filtering; call once at the end. */
  flush(): Float32Array
}

/** The result of decoding an uploaded audio file (`src/audio/decode.ts`). */
export interface DecodedAudio<S extends MonoSamples = Float32Array> {
  /** Mono samples: the channels averaged. */
  readonly samples: S
  readonly sampleRate: number
  /** Channel count of the original file, before the downmix. */
  readonly channels: number
  /** Container and codec as sniffed: `wav`, `mp3`, `ogg-opus`, `ogg-vorbis`, `flac`, `m4a`, `webm`, … */
  readonly format: string
  readonly durationSec: number
}
