import { createRequire, isBuiltin } from 'node:module'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { Worker, type WorkerOptions } from 'node:worker_threads'
import { buildSync } from 'esbuild'

/**
 * Starts a worker thread from a sibling module. Compiled `.js` workers start directly. A `.ts` worker (Parla
 * runs its sources, no build step) is bundled once per process with esbuild into one plain ES module and
 * started from a `data:` URL: loading it through tsx instead registers tsx's loader inside every worker,
 * which cost each thread a loader-hooks thread and tsx's transforms (measured: 2 pocketsphinx workers 330 →
 * 310 MB, 2 eSpeak NG workers 320 → 80 MB; see docs/decisions.md). Packages stay outside the bundle, imported from their absolute file URLs (a
 * `data:` module cannot resolve bare names), so a package finds its own files as usual. The bundle needs no
 * loader, so the worker does not inherit tsx's `--require`/`--import` flags (`execArgv: []`): with them each
 * worker loaded tsx anyway, ~7 MB more per thread (measured).
 */
export function startModuleWorker(url: URL, options: WorkerOptions = {}): Worker {
  if (!url.pathname.endsWith('.ts')) return new Worker(url, options)
  return new Worker(new URL(`data:text/javascript,${encodeURIComponent(bundle(url))}`), { execArgv: [], ...options })
}

/** `./worker.ts` or `./worker.js` next to the calling module, matching how the caller itself runs. */
export function siblingWorkerUrl(callerUrl: string, name: string): URL {
  return new URL(`./${name}${callerUrl.endsWith('.ts') ? '.ts' : '.js'}`, callerUrl)
}

const bundles = new Map<string, string>()

export function bundle(url: URL): string {
  let code = bundles.get(url.href)
  if (code !== undefined) return code
  const entry = fileURLToPath(url)
  const result = buildSync({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    metafile: true,
    logLevel: 'silent',
  })
  code = result.outputFiles[0]!.text
  const require = createRequire(entry)
  for (const output of Object.values(result.metafile.outputs)) {
    for (const { path, external } of output.imports) {
      if (!external || isBuiltin(path)) continue
      const resolved = JSON.stringify(pathToFileURL(require.resolve(path)).href)
      // esbuild writes external imports as `from "name"` (or `import("name")`), always double-quoted.
      code = code.replaceAll(`from ${JSON.stringify(path)}`, `from ${resolved}`)
        .replaceAll(`import(${JSON.stringify(path)})`, `import(${resolved})`)
    }
  }
  // Names the module in stack traces instead of a long data: URL.
  code += `\n//# sourceURL=${url.href}\n`
  bundles.set(url.href, code)
  return code
}
