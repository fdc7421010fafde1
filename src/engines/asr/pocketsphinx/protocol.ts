import type { RecognizedWord } from '../types.js'

/** What the engine hands each worker at start. */
export interface WorkerSetup {
  readonly args: readonly string[]
  readonly blockSamples: number
  /** Int32Array view: slot 0 holds the id of a job the worker should stop. */
  readonly cancel: SharedArrayBuffer
}

export interface JobMessage {
  readonly type: 'job'
  readonly id: number
  /** 16 kHz mono s16, transferred. */
  readonly pcm: Int16Array
  /** Align the audio to exactly these words (lower-case dictionary words) instead of recognising it. */
  readonly words?: readonly string[]
}

/** Free the decoder and let the thread end (after the job in hand, if any). */
export interface CloseMessage {
  readonly type: 'close'
}

export type WorkerRequest = JobMessage | CloseMessage

export type WorkerReply =
  | { readonly type: 'ready' }
  | { readonly type: 'init-failed', readonly message: string }
  | { readonly type: 'done', readonly id: number, readonly words: RecognizedWord[], readonly stopped: boolean }
  | { readonly type: 'failed', readonly id: number, readonly message: string }
