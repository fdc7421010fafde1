/** The WebAssembly API: Node has it, but this project's `lib` (no DOM) only declares its types. */
interface WasmApi {
  compile(bytes: Uint8Array): Promise<WebAssembly.Module>
  Instance: new (module: WebAssembly.Module, imports: Record<string, unknown>) => object
}

export const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly

/** An instance's exported `WebAssembly.Memory` (its `buffer` is replaced when the memory grows). */
export interface WasmMemory {
  readonly buffer: ArrayBuffer
}
