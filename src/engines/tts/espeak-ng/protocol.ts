/** Messages between the eSpeak NG engine and its worker threads. */
import type { ESpeakEvent } from '@echogarden/espeak-ng-emscripten'

export interface EspeakVoiceInfo {
  readonly name: string
  readonly identifier: string
  readonly languages: readonly string[]
  /** eSpeak's code: 1 male, 2 female, 0 unspecified. */
  readonly gender: number
}

export interface EspeakJob {
  readonly type: 'synth'
  readonly id: number
  readonly text: string
  /** eSpeak voice identifier, e.g. `gmw/en-US`. */
  readonly identifier: string
  readonly wordsPerMinute: number
  /** eSpeak pitch, 0–100 (50 is the voice's own). */
  readonly pitch: number
  /** A shared flag: the engine stores 1 to stop synthesis at the next chunk. */
  readonly stop: Int32Array
}

export type EspeakEventInfo = Pick<ESpeakEvent, 'type' | 'text_position' | 'word_length' | 'audio_position'>

export type EspeakReply =
  | { readonly type: 'ready'; readonly voices: readonly EspeakVoiceInfo[]; readonly sampleRate: number }
  | { readonly type: 'chunk'; readonly id: number; readonly samples: Int16Array; readonly events: EspeakEventInfo[] }
  | { readonly type: 'done'; readonly id: number; readonly stopped: boolean }
  | { readonly type: 'error'; readonly id: number; readonly message: string }
