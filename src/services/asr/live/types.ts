import type { AsrEngine, RecognizedWord } from '../../../engines/asr/types.js'
import type { SpeechError } from '../../../errors.js'
import type { TurnSettings } from './turn-detector.js'
import type { LiveLog, VoiceDetectorSource } from './voice-detector.js'

export interface LiveSessionOptions {
  readonly engine: AsrEngine
  /** Takes a place in the ASR gate (held while a turn has a decoder); resolves with its release. */
  hold(signal: AbortSignal): Promise<() => void>
  /** Rate of the client's 16-bit mono PCM. */
  readonly inputRate: number
  readonly language: string
  /** Server-side turn detection, or null: turns end only on `commit`. */
  readonly turns: TurnSettings | null
  /** Audio (seconds) that may wait for the decoder before `append` refuses more. Default 15. */
  readonly maxBacklogSec?: number
  /** Without `append` for this long the session emits `idle`. Default: never. */
  readonly idleMs?: number
  /** Voice activity detectors in order of preference (the first that opens is used). Default: libfvad. */
  readonly detectors?: readonly VoiceDetectorSource[]
  /** Where the session says how it started (its detector and settings) and that a detector fell back. */
  readonly log?: LiveLog
}

/** What a live session tells its client; times are seconds of the session's audio (its clock). */
export type LiveEvent =
  | { readonly type: 'speech_started'; readonly turn: string; readonly atSec: number }
  | { readonly type: 'speech_stopped'; readonly turn: string; readonly atSec: number }
  | { readonly type: 'committed'; readonly turn: string }
  | { readonly type: 'partial'; readonly turn: string; readonly stable: string; readonly tail: string; readonly delta: string }
  | { readonly type: 'final'; readonly turn: string; readonly text: string; readonly words: readonly RecognizedWord[]; readonly audioSec: number }
  | { readonly type: 'failed'; readonly turn: string; readonly error: SpeechError }
  | { readonly type: 'cleared' }
  | { readonly type: 'error'; readonly error: SpeechError }
  | { readonly type: 'idle' }
