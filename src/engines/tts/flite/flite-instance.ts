import { MemoryWasi, WasiExit } from './wasi-memfs.js'
import { wasm, type WasmMemory } from './wasm.js'

interface FliteExports {
  readonly memory: WasmMemory
  readonly _start: () => void
}

export interface FliteRun {
  readonly stdout: string
  /** A file flite wrote in its working directory (e.g. `out.wav`). */
  file(path: string): Uint8Array | undefined
}

/**
 * One flite wasm instance, reused for every run of a worker. flite's `main` is not re-entrant (it keeps
 * global state), so each run starts from a copy of the instance's memory taken before its first run: the
 * data segments as instantiated, pages grown since then zeroed. `_start` returns normally on success, which
 * leaves the stack pointer (flite's only global) where it began. A run that ends any other way (a trap, a
 * non-zero exit) may have left the stack pointer mid-stack, so the instance is rebuilt before the next run.
 */
export class FliteInstance {
  readonly #module: WebAssembly.Module
  #wasi = new MemoryWasi()
  #exports: FliteExports
  #pristine: Uint8Array
  #dirty = false

  constructor(module: WebAssembly.Module) {
    this.#module = module
    ;[this.#exports, this.#pristine] = this.#instantiate()
  }

  #instantiate(): [FliteExports, Uint8Array] {
    this.#wasi = new MemoryWasi()
    const instance = new wasm.Instance(this.#module, { wasi_snapshot_preview1: this.#wasi.imports() })
    const exports = (instance as { exports: FliteExports }).exports
    this.#wasi.bind(exports.memory)
    return [exports, new Uint8Array(exports.memory.buffer).slice()]
  }

  /** Runs `flite <args>` to the end; throws when flite fails. Synchronous: call it from a worker thread. */
  run(args: readonly string[]): FliteRun {
    if (this.#dirty) {
      ;[this.#exports, this.#pristine] = this.#instantiate()
      this.#dirty = false
    }
    const memory = new Uint8Array(this.#exports.memory.buffer)
    memory.set(this.#pristine)
    memory.fill(0, this.#pristine.length)
    const wasi = this.#wasi
    wasi.reset(['flite', ...args])
    try {
      this.#exports._start()
    } catch (err) {
      this.#dirty = true
      const code = err instanceof WasiExit ? err.code : undefined
      if (code === 0) return { stdout: wasi.stdout(), file: (path) => wasi.file(path) }
      const why = code === undefined ? String(err instanceof Error ? err.message : err) : `exited with ${code}`
      throw new Error(`flite ${why}: ${wasi.stderr().trim().slice(0, 300)}`)
    }
    return { stdout: wasi.stdout(), file: (path) => wasi.file(path) }
  }
}
