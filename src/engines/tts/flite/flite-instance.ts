import { MemoryWasi, WasiExit } from './wasi-memfs.js'
import { wasm, type WasmMemory } from './wasm.js'
import type { ByteRange } from './wasm-layout.js'

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
 * data as instantiated, pages grown since then zeroed. The read-only data (`readOnly`, 16 of flite's 17 MB:
 * the compiled-in voices) is not copied back: C never writes its `const` data (natively it sits in read-only
 * pages), and copying it would cost more than a short run (test: flite-instance.test.ts checks it is unchanged
 * after many runs). `_start` returns normally on success, which leaves the stack pointer (flite's only global)
 * where it began. A run that ends any other way (a trap, a non-zero exit) may have left the stack pointer
 * mid-stack, so the instance is rebuilt before the next run.
 */
/** The writable parts of memory as instantiated: below and above the read-only data. */
interface Pristine {
  readonly below: Uint8Array
  readonly above: Uint8Array
  readonly length: number
}

export class FliteInstance {
  readonly #module: WebAssembly.Module
  readonly #readOnly: ByteRange
  #wasi = new MemoryWasi()
  #exports: FliteExports
  #pristine: Pristine
  #dirty = false

  constructor(module: WebAssembly.Module, readOnly?: ByteRange) {
    this.#module = module
    this.#readOnly = readOnly ?? { start: 0, end: 0 }
    ;[this.#exports, this.#pristine] = this.#instantiate()
  }

  #instantiate(): [FliteExports, Pristine] {
    this.#wasi = new MemoryWasi()
    const instance = new wasm.Instance(this.#module, { wasi_snapshot_preview1: this.#wasi.imports() })
    const exports = (instance as { exports: FliteExports }).exports
    this.#wasi.bind(exports.memory)
    const memory = new Uint8Array(exports.memory.buffer)
    const { start, end } = this.#readOnly
    return [exports, { below: memory.slice(0, start), above: memory.slice(end), length: memory.length }]
  }

  #restore(): void {
    const memory = new Uint8Array(this.#exports.memory.buffer)
    const { below, above, length } = this.#pristine
    memory.set(below)
    memory.set(above, this.#readOnly.end)
    memory.fill(0, length)
  }

  /** The read-only data as it is now (for tests). */
  readOnlyData(): Uint8Array {
    const { start, end } = this.#readOnly
    return new Uint8Array(this.#exports.memory.buffer, start, end - start)
  }

  /** Runs `flite <args>` to the end; throws when flite fails. Synchronous: call it from a worker thread. */
  run(args: readonly string[]): FliteRun {
    if (this.#dirty) {
      ;[this.#exports, this.#pristine] = this.#instantiate()
      this.#dirty = false
    }
    this.#restore()
    const wasi = this.#wasi
    wasi.reset(['flite', ...args])
    try {
      this.#exports._start()
    } catch (err) {
      this.#dirty = true
      const code = err instanceof WasiExit ? err.code : undefined
      if (code === 0) return { stdout: wasi.stdout(), file: (path) => wasi.file(path) }
      const why = code === undefined ? String(err instanceof Error ? err.message : err) : `exited with ${code}`
      throw new Error(`flite ${why}: ${wasi.stderr().trim().slice(0, 300)}`, { cause: err })
    }
    return { stdout: wasi.stdout(), file: (path) => wasi.file(path) }
  }
}
