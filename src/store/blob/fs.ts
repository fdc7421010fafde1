import { randomBytes } from 'node:crypto'
import { mkdir, open, readFile, readdir, rename, rm, stat } from 'node:fs/promises'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { assertBlobKey, type BlobStore } from './types.js'

/**
 * Local-filesystem blobs under `root`. Writes go to a temp file in `root/.tmp`, are fsynced, then renamed
 * into place, so a crash leaves either the old state or the complete new file (plus a stray temp file that
 * `cleanTemp` removes at start).
 */
export async function createFsBlobStore(root: string): Promise<BlobStore> {
  const base = resolve(root)
  const tmp = join(base, '.tmp')
  await rm(tmp, { recursive: true, force: true })
  await mkdir(tmp, { recursive: true })
  const pathOf = (key: string) => {
    assertBlobKey(key)
    return join(base, ...key.split('/'))
  }

  return {
    id: 'fs',
    async put(key, body, options) {
      const target = pathOf(key)
      const temp = join(tmp, `${randomBytes(8).toString('hex')}.part`)
      const handle = await open(temp, 'w')
      try {
        if (body instanceof Uint8Array) await handle.write(body)
        else
          for await (const chunk of body) {
            options?.signal?.throwIfAborted()
            await handle.write(chunk)
          }
        await handle.sync()
      } catch (err) {
        await handle.close()
        await rm(temp, { force: true })
        throw err
      }
      await handle.close()
      await mkdir(dirname(target), { recursive: true })
      await rename(temp, target)
    },
    async get(key) {
      try {
        return new Uint8Array(await readFile(pathOf(key)))
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null
        throw err
      }
    },
    async delete(key) {
      await rm(pathOf(key), { force: true })
    },
    async list(prefix, options) {
      const dir = join(base, ...prefix.split('/').filter(Boolean))
      const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => [])
      const files = entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name))
      const before = options?.writtenBefore
      // A file gone between readdir and stat (deleted meanwhile) is not listed.
      const old = before === undefined ? files : (await Promise.all(files.map(async (f) => ((await stat(f).catch(() => null))?.mtimeMs ?? Infinity) < before ? [f] : []))).flat()
      return old.map((f) => relative(base, f).split(sep).join('/')).filter((k) => !k.startsWith('.tmp/'))
    },
  }
}
