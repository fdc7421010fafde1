import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll } from 'vitest'
import { runBlobStoreConformance } from '../../../test/support/conformance/blob-store.js'
import { createFsBlobStore } from './fs.js'
import { createMemoryBlobStore } from './memory.js'

const dirs: string[] = []
afterAll(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))))

runBlobStoreConformance({
  name: 'fs',
  create: async () => {
    const dir = await mkdtemp(join(tmpdir(), 'parla-blobs-'))
    dirs.push(dir)
    return createFsBlobStore(dir)
  },
})
runBlobStoreConformance({ name: 'memory', create: async () => createMemoryBlobStore() })
