import type { ReferenceClip, TtsEngine } from '../../engines/tts/types.js'

/** How a cloned voice differs from the built-in voice that speaks for it (see src/voices/adaptation.ts). */
export interface VoiceAdaptation {
  readonly pitchSemitones: number
  /** Tempo factor: 1.2 speaks 20 % faster. */
  readonly rate: number
  readonly formantScale: number
  readonly gainDb: number
  /** Apply `rate` with Rubber Band instead of the engine's rate control (it runs anyway for the pitch). */
  readonly tempoByDsp?: boolean
}

/** A voice ready to speak: the engine and engine voice, plus any adaptation to a reference speaker. */
export interface VoiceRender {
  /** The voice model `_id` this came from (or `references` for inline references). */
  readonly modelId: string
  readonly engine: TtsEngine
  readonly voiceId: string
  readonly languages: readonly string[]
  readonly adaptation?: VoiceAdaptation
  /** False when this voice ignores the engine's pitch control (flite `rms`). */
  readonly pitchControl?: boolean
  /** Reference clips the engine clones from (engines with `capabilities.cloning`). */
  readonly references?: readonly ReferenceClip[]
}

/** Picks the voice for a text chunk, by speaker index and the chunk's detected language. */
export type VoiceChooser = (speaker: number, language: string) => VoiceRender

/** Pitch/tempo/formant processing for engines that cannot do it natively (Rubber Band). */
export type Stretcher = (
  samples: Float32Array,
  sampleRate: number,
  options: { readonly timeRatio: number; readonly pitchScale: number; readonly formantScale?: number; readonly signal?: AbortSignal },
) => Promise<Float32Array>

/** What `createStretchStream` gives: Rubber Band in real-time mode, fed block by block, aligned with its input. */
export interface StretchStream {
  process(block: Float32Array): Float32Array
  flush(): Float32Array
  close(): void
}

/** Opens one streaming stretcher for a text chunk (a cloned voice's pitch/tempo/formants). */
export type StretchStreamFactory = (
  sampleRate: number,
  options: { readonly timeRatio: number; readonly pitchScale: number; readonly formantScale?: number },
) => Promise<StretchStream>
