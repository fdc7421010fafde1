// The package ships no types; this is the slice of its emscripten module that src/asr/vad.ts uses.
declare module '@echogarden/fvad-wasm' {
  export interface FvadModule {
    HEAP16: Int16Array
    _malloc(bytes: number): number
    _free(ptr: number): void
    _fvad_new(): number
    _fvad_free(inst: number): void
    _fvad_set_mode(inst: number, mode: number): number
    _fvad_set_sample_rate(inst: number, rate: number): number
    _fvad_process(inst: number, frame: number, length: number): number
  }
  const createFvad: (options?: Record<string, unknown>) => Promise<FvadModule>
  export default createFvad
}
