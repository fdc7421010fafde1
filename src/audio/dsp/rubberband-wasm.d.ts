/** The package ships no typings; it default-exports the emscripten module factory. */
declare module '@echogarden/rubberband-wasm' {
  const factory: (options?: object) => Promise<unknown>
  export default factory
}
