import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { Worker, type WorkerOptions } from 'node:worker_threads'

/**
 * Starts a worker thread from a sibling module. Parla runs its TypeScript sources through tsx, but Node 20
 * does not pass tsx's loader on to worker threads, so a `.ts` worker is started through tsx's `tsImport`.
 * Compiled `.js` workers start directly.
 */
export function startModuleWorker(url: URL, options: WorkerOptions = {}): Worker {
  if (!url.pathname.endsWith('.ts')) return new Worker(url, options)
  const api = JSON.stringify(tsxApiUrl())
  const target = JSON.stringify(url.href)
  const code = `import(${api}).then((m) => m.tsImport(${target}, ${target}))`
  return new Worker(code, { ...options, eval: true })
}

/** `./worker.ts` or `./worker.js` next to the calling module, matching how the caller itself runs. */
export function siblingWorkerUrl(callerUrl: string, name: string): URL {
  return new URL(`./${name}${callerUrl.endsWith('.ts') ? '.ts' : '.js'}`, callerUrl)
}

let cachedApi: string | undefined

function tsxApiUrl(): string {
  if (cachedApi) return cachedApi
  const require = createRequire(import.meta.url)
  const pkgPath = require.resolve('tsx/package.json')
  const pkg = require(pkgPath) as { exports: Record<string, { import?: { default?: string } }> }
  const entry = pkg.exports['./esm/api']?.import?.default ?? './dist/esm/api/index.mjs'
  cachedApi = pathToFileURL(join(dirname(pkgPath), entry)).href
  return cachedApi
}
