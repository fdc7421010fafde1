/** The package ships no typings; both entry points default-export the emscripten module factory. */
declare module '@echogarden/speex-resampler-wasm' {
  const factory: (options?: object) => Promise<unknown>
  export default factory
}
declare module '@echogarden/speex-resampler-wasm/simd' {
  const factory: (options?: object) => Promise<unknown>
  export default factory
}
