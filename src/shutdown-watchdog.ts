import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'

/**
 * Ends the process `afterMs` from now with `code`, from a thread of its own: it fires even when the main thread
 * never returns to its event loop (a synchronous wait on a worker, a wasm thread or a full pipe), which a
 * timer could not. The thread sleeps in `Atomics.wait`, then calls libc's `_exit` through koffi (the whole
 * process ends at once with that code, running no JavaScript); without koffi it sends itself SIGKILL.
 * `unref`'d: it keeps nothing alive, and a process that ended cleanly before takes it along.
 */
export function armShutdownWatchdog(afterMs: number, code: number): void {
  let koffi: string | undefined
  try {
    koffi = createRequire(import.meta.url).resolve('koffi')
  } catch {
    koffi = undefined
  }
  const worker = new Worker(WATCHDOG, { eval: true, execArgv: [], env: {}, stdout: true, stderr: true, workerData: { afterMs, code, koffi } })
  worker.unref()
  // A failure to start leaves the main thread's own deadline in place; nothing to report it to but the log.
  worker.on('error', () => {})
}

// Plain CommonJS: it runs without tsx, on its own thread.
const WATCHDOG = `
const { workerData } = require('node:worker_threads')
let end
try {
  const exit = require(workerData.koffi).load('libc.so.6').func('void _exit(int)')
  end = () => exit(workerData.code)
} catch {
  end = () => process.kill(process.pid, 'SIGKILL')
}
Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, workerData.afterMs)
end()
`
