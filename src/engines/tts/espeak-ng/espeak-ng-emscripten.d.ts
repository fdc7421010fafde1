/** The parts of `@echogarden/espeak-ng-emscripten` (no bundled types) that Parla uses. */
declare module '@echogarden/espeak-ng-emscripten' {
  export interface ESpeakEvent {
    readonly type:
      | 'list_terminated' | 'word' | 'sentence' | 'mark' | 'play' | 'end' | 'msg_terminated' | 'phoneme' | 'samplerate'
    /** 1-based index of the event's first character (code point) in the text. */
    readonly text_position: number
    readonly word_length: number
    /** Milliseconds from the start of the call's audio. */
    readonly audio_position: number
    readonly id?: string | number
  }
  export interface ESpeakVoiceStruct {
    readonly ptr: number
    get_gender(): number
  }
  export interface ESpeakVoiceInfo {
    readonly name: string
    readonly identifier: string
    readonly languages: readonly { readonly priority: number; readonly name: string }[]
  }
  export interface ESpeakNGWorker {
    readonly samplerate: number
    list_voices(): ESpeakVoiceInfo[]
    get_voices(index: number): ESpeakVoiceStruct
    /** 0 on success. */
    set_voice(name: string): number
    set_rate(wordsPerMinute: number): void
    set_pitch(pitch: number): void
    /** Calls `onChunk` as audio is produced; returning true stops synthesis. Synchronous. */
    synthesize(text: string, onChunk: (samples: Int16Array, events: ESpeakEvent[]) => boolean): void
  }
  export interface ESpeakModule {
    eSpeakNGWorker: new () => ESpeakNGWorker
  }
  const init: () => Promise<ESpeakModule>
  export default init
}
