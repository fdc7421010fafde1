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

/**
 * A live utterance on one decoder (`openStream` in pool.ts): `stream-start` with its first audio, any number of
 * `stream-feed`, then `stream-end` (its words: the whole utterance decoded again when more than its first audio
 * came, which polls the cancel flag like a job) or `stream-cancel`. Each start and feed is answered by `partial`.
 * `stream-so-far` decodes the utterance so far as `stream-end` would without ending it (answered by `so-far`); it
 * stops when the cancel flag holds its `spec` id (that decode only) or the utterance's id.
 */
export type StreamMessage =
  | { readonly type: 'stream-start'; readonly id: number; readonly pcm: Int16Array; readonly channel?: Int16Array }
  | { readonly type: 'stream-feed'; readonly id: number; readonly pcm: Int16Array }
  | { readonly type: 'stream-end' | 'stream-cancel'; readonly id: number }
  | { readonly type: 'stream-so-far'; readonly id: number; readonly spec: number }

export type WorkerRequest = JobMessage | CloseMessage | StreamMessage

export type WorkerReply =
  | { readonly type: 'ready' }
  | { readonly type: 'init-failed', readonly message: string }
  | { readonly type: 'done', readonly id: number, readonly words: RecognizedWord[], readonly stopped: boolean }
  | { readonly type: 'failed', readonly id: number, readonly message: string }
  | { readonly type: 'partial', readonly id: number, readonly words: string[] }
  | { readonly type: 'so-far', readonly id: number, readonly words: RecognizedWord[], readonly stopped: boolean }
