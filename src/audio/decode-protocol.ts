/** Messages between `decode-worker.ts` (main thread) and `decode-thread.ts` (the decoder worker). */
export interface DecodeJobMessage {
  readonly type: 'job'
  readonly id: number
  /** `audio-decode`'s format key. */
  readonly format: string
  readonly bytes: Uint8Array
  readonly maxSeconds?: number
}

/** The main thread has taken a block of job `id`; `spare` is the block's buffer, returned for reuse. */
export interface AckMessage {
  readonly type: 'ack'
  readonly id: number
  readonly spare?: Float32Array
}

export type DecodeReply =
  /** Mono samples at `sampleRate`; `expectedSeconds` extrapolates the whole file's duration from its bytes. */
  | { readonly type: 'block'; readonly id: number; readonly samples: Float32Array; readonly sampleRate: number;
      readonly expectedSeconds: number }
  | { readonly type: 'done'; readonly id: number; readonly channels: number }
  | { readonly type: 'too-long'; readonly id: number; readonly decodedSeconds: number }
  | { readonly type: 'failed'; readonly id: number; readonly message: string }
