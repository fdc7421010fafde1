/** Messages between the flite engine and its worker threads. */

export interface FliteJob {
  readonly type: 'synth'
  readonly id: number
  /** ASCII text (see `toAsciiText`). */
  readonly text: string
  readonly voice: string
  readonly durationStretch: number
  readonly f0Mean?: number
}

export type FliteReply =
  | { readonly type: 'ready' }
  | {
      readonly type: 'result'
      readonly id: number
      readonly wav: Uint8Array
      /** `-psdur` trace of the synthesized voice. */
      readonly trace: string
      /** `-pw` words. */
      readonly words: readonly string[]
      /** `-ps` of the words in isolation. */
      readonly groups: string
    }
  | { readonly type: 'error'; readonly id: number; readonly message: string }
