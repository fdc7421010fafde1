import { spawn } from 'node:child_process'
import { createReadStream, createWriteStream } from 'node:fs'
import { mkdir, readdir, rename, rm, symlink } from 'node:fs/promises'
import { basename, dirname, isAbsolute, join, normalize, sep } from 'node:path'
import { PassThrough, type Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { createGunzip } from 'node:zlib'
import { extract } from 'tar-stream'
import { SpeechError } from '../errors.js'

/** Archive suffixes `pull` and `add` unpack: sherpa-onnx publishes `.tar.bz2`, others `.tar.gz`. */
export const ARCHIVE = /\.(tar\.bz2|tbz2|tar\.gz|tgz|tar)$/i

/**
 * Unpacks a model archive into `workDir` (a fresh folder), refusing any entry that would land outside it:
 * absolute paths, `..`, links that point out, device files. Returns the package folder: the archive's one
 * top-level folder, or `workDir` itself when the archive holds loose files.
 */
export async function unpackArchive(archive: string, workDir: string, signal?: AbortSignal, published = basename(archive)): Promise<string> {
  await mkdir(workDir, { recursive: true })
  const source = decompressed(archive, published)
  const tar = extract()
  const done = (async () => {
    for await (const entry of tar) {
      const name = safePath(entry.header.name, published)
      const target = join(workDir, name)
      const type = entry.header.type
      if (type === 'directory') {
        await mkdir(target, { recursive: true })
        entry.resume()
      } else if (type === 'file' || type === 'contiguous-file') {
        await mkdir(dirname(target), { recursive: true })
        await pipeline(entry, createWriteStream(target, { mode: 0o644 }))
      } else if (type === 'symlink') {
        const link = entry.header.linkname ?? ''
        if (isAbsolute(link) || !safeJoin(dirname(name), link)) throw unsafe(published, `${name} -> ${link}`)
        await mkdir(dirname(target), { recursive: true })
        await symlink(link, target)
        entry.resume()
      } else {
        // Hard links, devices, fifos: nothing a model needs, and hard links can point anywhere.
        throw unsafe(published, `${name} (${type} entries are not unpacked)`)
      }
    }
  })()
  const [piped, read] = await Promise.allSettled([pipeline(source, tar, signal ? { signal } : {}), done])
  // The reader's error says why (an unsafe entry); the pipe then only reports that it was cut short.
  if (read.status === 'rejected') throw read.reason
  if (piped.status === 'rejected') throw piped.reason
  const top = await readdir(workDir, { withFileTypes: true })
  return top.length === 1 && top[0]!.isDirectory() ? join(workDir, top[0]!.name) : workDir
}

/** The tar stream inside `archive`; `name` (the published file name) says how it is compressed. */
function decompressed(archive: string, name: string): Readable {
  const file = createReadStream(archive)
  if (/\.(tar\.gz|tgz)$/i.test(name)) return file.pipe(createGunzip())
  if (/\.(tar\.bz2|tbz2)$/i.test(name)) {
    // bzip2 (Debian package `bzip2`, installed by scripts/ensure-deps.sh) decompresses in its own process.
    const child = spawn('bzip2', ['-dc'], { stdio: ['pipe', 'pipe', 'pipe'] })
    let stderr = ''
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    file.pipe(child.stdin)
    child.stdin.on('error', () => {})
    // The output ends only once bzip2 has said whether the data was whole, so a corrupt archive is reported
    // as such rather than as a short tar.
    const out = new PassThrough()
    child.stdout.pipe(out, { end: false })
    child.on('close', (code) => {
      if (code === 0) out.end()
      else out.destroy(new SpeechError('bad_request', `${name} is not a valid .tar.bz2 archive: ${stderr.trim() || `bzip2 exit code ${code}`}`))
    })
    out.on('close', () => child.kill())
    return out
  }
  return file
}

function safePath(name: string, archive: string): string {
  const clean = name.replace(/^\.\/+/, '')
  if (clean === '' || clean === '.') return '.'
  if (isAbsolute(clean) || clean.split('/').includes('..') || normalize(clean).startsWith(`..${sep}`)) throw unsafe(archive, name)
  return clean
}

const safeJoin = (dir: string, link: string) => !normalize(join(dir, link)).startsWith('..')

const unsafe = (published: string, what: string) =>
  new SpeechError('bad_request', `${published}: refusing unsafe archive entry ${what}; nothing was installed`)

/** Moves a finished folder into place under `modelsDir`; refuses to replace an existing package. */
export async function install(from: string, modelsDir: string, id: string): Promise<string> {
  const target = join(modelsDir, id)
  const exists = await readdir(modelsDir).then((names) => names.includes(id))
  if (exists) throw new SpeechError('conflict', `a model named ${id} is already installed; remove it first with 'parla models rm ${id}'`)
  await rename(from, target)
  return target
}

export const removeTree = (path: string) => rm(path, { recursive: true, force: true })
