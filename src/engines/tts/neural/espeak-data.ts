import { createRequire } from 'node:module'
import { mkdir, open, readFile, rename, rm, stat, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'

/**
 * Piper voices are phonemized by eSpeak NG, so the runtime needs an `espeak-ng-data` folder. sherpa-onnx's
 * own Piper archives ship one; a bare Piper voice (`*.onnx` + `*.onnx.json`) does not. Parla already
 * depends on the eSpeak NG emscripten build, whose package holds that folder as one file plus a manifest
 * (`loadPackage({files:[{filename,start,end}…]})`); this unpacks it once into a cache folder.
 */
const PACKAGE = '@echogarden/espeak-ng-emscripten'
const PREFIX = '/usr/share/espeak-ng-data/'

let pending: Map<string, Promise<string>> | undefined

/** The path of an unpacked `espeak-ng-data` under `cacheDir`, unpacking it on first use. */
export function espeakDataDir(cacheDir: string): Promise<string> {
  pending ??= new Map()
  let found = pending.get(cacheDir)
  if (!found) {
    found = unpack(cacheDir)
    found.catch(() => pending?.delete(cacheDir))
    pending.set(cacheDir, found)
  }
  return found
}

async function unpack(cacheDir: string): Promise<string> {
  const target = join(cacheDir, 'espeak-ng-data')
  if (await stat(join(target, 'phontab')).then(() => true, () => false)) return target
  const require = createRequire(import.meta.url)
  const script = require.resolve(`${PACKAGE}/espeak-ng.js`)
  const source = await readFile(script, 'utf8')
  const files = [...source.matchAll(/\{filename:"([^"]+)",start:(\d+),end:(\d+)\}/g)]
    .filter((m) => m[1]!.startsWith(PREFIX))
    .map((m) => ({ name: m[1]!.slice(PREFIX.length), start: Number(m[2]), end: Number(m[3]) }))
  if (!files.some((f) => f.name === 'phontab')) throw new Error(`${PACKAGE}: no espeak-ng-data manifest found in espeak-ng.js`)
  // Unpack beside the target and rename, so a crash half-way never leaves a partial folder in use.
  const temp = `${target}.tmp-${process.pid}`
  await rm(temp, { recursive: true, force: true })
  const data = await open(join(dirname(script), 'espeak-ng.data'), 'r')
  try {
    for (const f of files) {
      if (f.name.split('/').includes('..')) continue
      const buf = Buffer.alloc(f.end - f.start)
      await data.read(buf, 0, buf.length, f.start)
      await mkdir(dirname(join(temp, f.name)), { recursive: true })
      await writeFile(join(temp, f.name), buf)
    }
  } finally {
    await data.close()
  }
  await rename(temp, target).catch(async (err: NodeJS.ErrnoException) => {
    // Another process unpacked it first.
    await rm(temp, { recursive: true, force: true })
    if (err.code !== 'ENOTEMPTY' && err.code !== 'EEXIST') throw err
  })
  return target
}
