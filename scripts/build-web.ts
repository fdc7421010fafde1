// Builds the browser playground (web/) into dist/web: one bundled script, one stylesheet and index.html, each
// also stored brotli- and gzip-compressed so the server sends them without compressing per request.
// Skips the work when the sources have not changed since the last build (a hash of web/ and what it imports).
import { createHash } from 'node:crypto'
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { brotliCompressSync, constants, gzipSync } from 'node:zlib'
import { build } from 'esbuild'

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)))
export const WEB_DIST = join(ROOT, 'dist', 'web')
const SOURCES = [join(ROOT, 'web'), join(ROOT, 'src', 'text', 'tag-table.ts'), join(ROOT, 'src', 'api', 'fish', 'model-form.ts'), fileURLToPath(import.meta.url)]

async function sourceHash(): Promise<string> {
  const hash = createHash('sha256')
  const walk = async (path: string): Promise<void> => {
    const entries = await readdir(path, { withFileTypes: true }).catch(() => null)
    if (!entries) {
      hash.update(path).update(await readFile(path))
      return
    }
    for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) await walk(join(path, e.name))
  }
  for (const s of SOURCES) await walk(s)
  return hash.digest('hex')
}

/** Builds when stale; returns whether it built. Writes a new directory and renames it, so a reader never sees half. */
export async function buildWeb(options: { force?: boolean } = {}): Promise<boolean> {
  const hash = await sourceHash()
  const stamp = await readFile(join(WEB_DIST, '.source-hash'), 'utf8').catch(() => '')
  if (!options.force && stamp === hash) return false
  const result = await build({
    entryPoints: [join(ROOT, 'web', 'src', 'main.ts'), join(ROOT, 'web', 'style.css')],
    bundle: true,
    minify: true,
    format: 'esm',
    target: ['chrome111', 'firefox115', 'safari16'],
    write: false,
    outdir: '/out',
    entryNames: '[name]',
    legalComments: 'none',
    logLevel: 'silent',
  })
  const files = new Map<string, Buffer>()
  for (const f of result.outputFiles) files.set(f.path.slice('/out/'.length), Buffer.from(f.contents))
  const version = hash.slice(0, 12)
  const html = (await readFile(join(ROOT, 'web', 'index.html'), 'utf8')).replaceAll('{{version}}', version)
  files.set('index.html', Buffer.from(html))
  const tmp = `${WEB_DIST}.tmp-${process.pid}-${Date.now()}`
  await mkdir(tmp, { recursive: true })
  for (const [name, bytes] of files) {
    await writeFile(join(tmp, name), bytes)
    await writeFile(join(tmp, `${name}.br`), brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }))
    await writeFile(join(tmp, `${name}.gz`), gzipSync(bytes, { level: 9 }))
  }
  await writeFile(join(tmp, '.source-hash'), hash)
  const old = `${WEB_DIST}.old-${process.pid}-${Date.now()}`
  await rename(WEB_DIST, old).catch(() => undefined)
  // Another build may have landed in between: the same sources, so its result is as good as this one.
  await rename(tmp, WEB_DIST).catch(() => rm(tmp, { recursive: true, force: true }))
  await rm(old, { recursive: true, force: true })
  return true
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const built = await buildWeb({ force: process.argv.includes('--force') })
  process.stderr.write(built ? `parla: built the playground into ${WEB_DIST}\n` : '')
}
