/**
 * Messages between Parla and a neural host process (see host.ts), by advanced IPC serialization. Samples sent to
 * the process travel as Float32Array; a synthesized sentence comes back as 16-bit scaled to its peak (pcm-transfer.ts).
 */
import type { TransferPcm } from './pcm-transfer.js'

/** What the runtime needs to load one TTS model: sherpa-onnx's `OfflineTtsConfig.model` fields for its family. */
export interface TtsLoadConfig {
  readonly vits?: { readonly model: string; readonly tokens: string; readonly dataDir?: string; readonly lexicon?: string; readonly lengthScale?: number; readonly noiseScale?: number; readonly noiseScaleW?: number }
  readonly kokoro?: { readonly model: string; readonly voices: string; readonly tokens: string; readonly dataDir?: string; readonly lexicon?: string }
  /** Text-normalisation rule FSTs, comma-separated (sherpa-onnx's `OfflineTtsConfig.ruleFsts`). */
  readonly ruleFsts?: string
  readonly zipvoice?: { readonly encoder: string; readonly decoder: string; readonly vocoder: string; readonly tokens: string; readonly dataDir?: string; readonly lexicon?: string }
}

/** sherpa-onnx recognizer model fields for one ASR family (file paths). */
export interface AsrLoadConfig {
  readonly model: Readonly<Record<string, Readonly<Record<string, string>>>>
  readonly tokens: string
  /** A streaming model, run by the runtime's `OnlineRecognizer` (`model` holds its `OnlineModelConfig` fields). */
  readonly online?: boolean
}

/** A Silero VAD model file (sherpa-onnx's `VadModelConfig.sileroVad.model`). */
export interface VadLoadConfig {
  readonly model: string
}

/** A transcription's language for a multilingual Whisper: a code of the model's, or `''` to detect it. */
export type AsrLanguage = string

/** What the runtime returns for one utterance: text, one start time per token (when it has them), the language heard. */
export interface AsrRawResult {
  readonly text: string
  readonly tokens: readonly string[]
  readonly timestamps: readonly number[]
  readonly lang?: string
}

export type ToHost =
  | { readonly t: 'asr-load'; readonly key: string; readonly config: AsrLoadConfig; readonly threads: number }
  | { readonly t: 'transcribe'; readonly id: number; readonly key: string; readonly samples: Float32Array; readonly sampleRate: number; readonly language?: AsrLanguage }
  | { readonly t: 'load'; readonly key: string; readonly config: TtsLoadConfig; readonly threads: number }
  | { readonly t: 'synth'; readonly id: number; readonly key: string; readonly text: string; readonly sid: number; readonly speed: number; readonly lang?: string; readonly reference?: { readonly samples: Float32Array; readonly sampleRate: number; readonly text: string } }
  | { readonly t: 'cancel'; readonly id: number }
  | { readonly t: 'vad-load'; readonly key: string; readonly config: VadLoadConfig }
  /** A voice activity stream on a loaded VAD model; `threshold` is the speech probability that counts as speech. */
  | { readonly t: 'vad-open'; readonly stream: number; readonly key: string; readonly threshold: number }
  /** 16 kHz samples of a stream; answered by `vad-flags` with the same id. */
  | { readonly t: 'vad-audio'; readonly id: number; readonly stream: number; readonly samples: Float32Array }
  | { readonly t: 'vad-close'; readonly stream: number }
  /** More audio for live utterance `id` of an online model (opened by its first feed); `last` ends it. */
  | { readonly t: 'stream-feed'; readonly id: number; readonly key: string; readonly samples: Float32Array; readonly last: boolean }
  /** Forgets live utterance `id` (dropped by its caller). */
  | { readonly t: 'stream-drop'; readonly id: number }

export type FromHost =
  | { readonly t: 'loaded'; readonly key: string; readonly sampleRate: number; readonly speakers: number }
  | { readonly t: 'load-failed'; readonly key: string; readonly message: string }
  /** Audio of one sentence (see pcm-transfer.ts). */
  | { readonly t: 'chunk'; readonly id: number; readonly audio: TransferPcm }
  | { readonly t: 'done'; readonly id: number; readonly sentences: number; readonly cancelled: boolean }
  | { readonly t: 'failed'; readonly id: number; readonly message: string }
  | { readonly t: 'transcribed'; readonly id: number; readonly result: AsrRawResult }
  /** One flag per VAD window the samples completed: speech or not. */
  | { readonly t: 'vad-flags'; readonly id: number; readonly flags: readonly boolean[] }
  /** Live utterance `id` decoded so far (or, after its `last` feed, all of it). */
  | { readonly t: 'stream-result'; readonly id: number; readonly result: AsrRawResult }
