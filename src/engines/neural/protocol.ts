/** Messages between Parla and a neural host process (see host.ts). Samples travel as Float32Array (advanced IPC serialization). */

/** What the runtime needs to load one TTS model: sherpa-onnx's `OfflineTtsConfig.model` fields for its family. */
export interface TtsLoadConfig {
  readonly vits?: { readonly model: string; readonly tokens: string; readonly dataDir?: string; readonly lexicon?: string; readonly lengthScale?: number; readonly noiseScale?: number; readonly noiseScaleW?: number }
  readonly kokoro?: { readonly model: string; readonly voices: string; readonly tokens: string; readonly dataDir?: string; readonly lexicon?: string }
  readonly zipvoice?: { readonly encoder: string; readonly decoder: string; readonly vocoder: string; readonly tokens: string; readonly dataDir?: string; readonly lexicon?: string }
}

export type ToHost =
  | { readonly t: 'load'; readonly key: string; readonly config: TtsLoadConfig; readonly threads: number }
  | { readonly t: 'synth'; readonly id: number; readonly key: string; readonly text: string; readonly sid: number; readonly speed: number; readonly reference?: { readonly samples: Float32Array; readonly sampleRate: number; readonly text: string } }
  | { readonly t: 'cancel'; readonly id: number }

export type FromHost =
  | { readonly t: 'loaded'; readonly key: string; readonly sampleRate: number; readonly speakers: number }
  | { readonly t: 'load-failed'; readonly key: string; readonly message: string }
  | { readonly t: 'chunk'; readonly id: number; readonly samples: Float32Array }
  | { readonly t: 'done'; readonly id: number; readonly sentences: number; readonly cancelled: boolean }
  | { readonly t: 'failed'; readonly id: number; readonly message: string }
