import { cp, mkdir, rename, rm, stat } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { SpeechError } from '../errors.js'
import { CACHE_DIR, detectPackage } from './detect.js'
import { download, sha256File, type DownloadOptions } from './download.js'
import { ARCHIVE, install, removeTree, unpackArchive } from './unpack.js'
import type { ModelPackage } from './types.js'

/**
 * `parla models add | pull | rm`: every change is prepared in `<modelsDir>/.parla-cache/work` and moved into
 * place only once the package is whole and recognised, so a failure half-way leaves `modelsDir` as it was.
 */
export const workDir = (modelsDir: string) => join(modelsDir, CACHE_DIR, 'work', `${process.pid}-${Date.now()}`)

/** Installs a local folder, single file (`ggml-*.bin`) or archive. */
export async function addModel(modelsDir: string, source: string, signal?: AbortSignal): Promise<ModelPackage> {
  const info = await stat(source).catch(() => null)
  if (!info) throw new SpeechError('not_found', `${source} does not exist`)
  const work = workDir(modelsDir)
  await mkdir(work, { recursive: true })
  try {
    let staged: string
    if (info.isFile() && ARCHIVE.test(source)) staged = await unpackArchive(source, join(work, 'unpacked'), signal)
    else {
      staged = join(work, basename(source))
      await cp(source, staged, { recursive: true, errorOnExist: true })
    }
    return await installStaged(modelsDir, staged, ARCHIVE.test(source) ? basename(source).replace(ARCHIVE, '') : basename(source))
  } finally {
    await removeTree(work)
  }
}

export interface PullOptions extends DownloadOptions {
  /** Expected SHA-256 (hex) of the downloaded file. */
  readonly sha256?: string
}

/**
 * Downloads a model archive (or a Piper `*.onnx`, with its `*.onnx.json` beside it, or a `ggml-*.bin`) and
 * installs it. Partial downloads stay in the cache and are resumed by the next pull of the same URL.
 */
export async function pullModel(modelsDir: string, url: string, options: PullOptions = {}): Promise<ModelPackage> {
  const name = decodeURIComponent(basename(new URL(url).pathname))
  if (!name || !(ARCHIVE.test(name) || /\.onnx$/i.test(name) || /^ggml-.+\.bin$/.test(name))) {
    throw new SpeechError('bad_request', `${url}: expected a .tar.bz2/.tar.gz archive, a Piper .onnx voice or a ggml-*.bin file`)
  }
  const downloads = join(modelsDir, CACHE_DIR, 'downloads')
  await mkdir(downloads, { recursive: true })
  const part = join(downloads, `${name}.part`)
  await download(url, part, options)
  if (options.sha256) {
    const actual = await sha256File(part)
    if (actual !== options.sha256.toLowerCase()) {
      await rm(part, { force: true })
      throw new SpeechError('bad_request', `checksum mismatch for ${name}: expected ${options.sha256}, got ${actual}; the download was discarded`)
    }
  }
  const work = workDir(modelsDir)
  await mkdir(work, { recursive: true })
  try {
    if (ARCHIVE.test(name)) {
      const staged = await unpackArchive(part, join(work, 'unpacked'), options.signal, name).catch(async (err: unknown) => {
        // A broken archive is not resumable: start from scratch next time.
        await rm(part, { force: true })
        throw err
      })
      const pkg = await installStaged(modelsDir, staged, name.replace(ARCHIVE, ''))
      await rm(part, { force: true })
      return pkg
    }
    if (/^ggml-/.test(name)) {
      await rename(part, join(work, name))
      return await installStaged(modelsDir, join(work, name), name)
    }
    // A Piper voice: the model and its config, in a folder named after the voice.
    const voice = name.replace(/\.onnx$/i, '')
    await mkdir(join(work, voice))
    await rename(part, join(work, voice, name))
    await download(`${url}.json`, join(work, voice, `${name}.json`), options.signal ? { signal: options.signal } : {})
    return await installStaged(modelsDir, join(work, voice), voice)
  } finally {
    await removeTree(work)
  }
}

/** Removes an installed package and what Parla derived from it. */
export async function removeModel(modelsDir: string, id: string): Promise<void> {
  if (id.includes('/') || id.startsWith('.') || !(await stat(join(modelsDir, id)).catch(() => null))) {
    throw new SpeechError('not_found', `no model ${id} in ${modelsDir}; see 'parla models list'`)
  }
  await rm(join(modelsDir, id), { recursive: true, force: true })
  await rm(join(modelsDir, CACHE_DIR, id), { recursive: true, force: true })
}

/** Moves a staged package into `modelsDir` once it is recognised; `fallbackName` names loose files unpacked. */
export async function installStaged(modelsDir: string, staged: string, fallbackName: string): Promise<ModelPackage> {
  const id = staged.endsWith('unpacked') ? fallbackName : basename(staged)
  const found = await detectPackage(dirname(staged), basename(staged)).catch((err: unknown) => {
    throw new SpeechError('bad_request', `${id} is not a model package Parla can read: ${err instanceof Error ? err.message : String(err)}`)
  })
  if (!found) throw new SpeechError('bad_request', `${id} is not a model package Parla recognises (see docs/models.md for the layouts)`)
  await mkdir(modelsDir, { recursive: true })
  await install(staged, modelsDir, id)
  return (await detectPackage(modelsDir, id))!
}
