import { closeSync, openSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { WASI as WasiClass } from 'node:wasi'
import { wasm } from './wasm.js'

/**
 * Runs flite once in a fresh WASI instance (flite's `main` is not re-entrant). `dir` is preopened as `.`;
 * stdout (the `-pw`/`-ps`/`-psdur` trace) is captured through a file in it. Synchronous: call it from a worker.
 */
export function runFlite(
  WASI: typeof WasiClass,
  module: WebAssembly.Module,
  args: readonly string[],
  dir: string,
  label: string,
): string {
  const outPath = join(dir, `${label}.out`)
  const errPath = join(dir, `${label}.err`)
  const out = openSync(outPath, 'w')
  const err = openSync(errPath, 'w')
  try {
    const wasi = new WASI({
      version: 'preview1',
      args: ['flite', ...args],
      preopens: { '.': dir },
      stdout: out,
      stderr: err,
      returnOnExit: true,
    })
    const instance = new wasm.Instance(module, { wasi_snapshot_preview1: wasi.wasiImport })
    const code = wasi.start(instance)
    if (code !== 0) throw new Error(`flite exited with ${code}: ${readFileSync(errPath, 'utf8').trim().slice(0, 300)}`)
  } finally {
    closeSync(out)
    closeSync(err)
  }
  return readFileSync(outPath, 'utf8')
}
