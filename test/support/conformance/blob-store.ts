/**
 * The contract every blob store keeps (src/store/blob/types.ts), as one suite each implementation runs:
 *
 *   runBlobStoreConformance({ name: 'fs', create: async () => createFsBlobStore(await tempDir()) })
 *
 * Each test gets a fresh store. `skip` names cases a store cannot meet, with the reason.
 */
import { afterEach, describe, expect, it } from 'vitest'
import type { BlobStore } from '../../../src/store/blob/types.js'

export type BlobStoreCase = 'atomic'

export interface BlobStoreConformanceOptions {
  readonly name: string
  /** A new, empty store. */
  readonly create: () => Promise<BlobStore>
  readonly skip?: Partial<Record<BlobStoreCase, string>>
}

const bytes = (...values: number[]) => new Uint8Array(values)
async function* pieces(...parts: Uint8Array[]): AsyncGenerator<Uint8Array> {
  for (const p of parts) yield p
}

export function runBlobStoreConformance(options: BlobStoreConformanceOptions): void {
  const open: BlobStore[] = []
  const fresh = async () => {
    const store = await options.create()
    open.push(store)
    return store
  }
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close?.()))
  })
  const check = (key: BlobStoreCase, name: string, fn: () => Promise<void>) => {
    const reason = options.skip?.[key]
    if (reason) it(`${name} — not applicable: ${reason}`, () => {})
    else it(name, fn)
  }

  describe(`${options.name}: blob store conformance`, () => {
    it('gives back what was put, from bytes or a stream of pieces, and a copy of it', async () => {
      const store = await fresh()
      const value = bytes(1, 2, 3)
      await store.put('models/m1/a.wav', value)
      value[0] = 9
      expect(await store.get('models/m1/a.wav')).toEqual(bytes(1, 2, 3))
      await store.put('models/m1/b.wav', pieces(bytes(4), bytes(5, 6)))
      expect(await store.get('models/m1/b.wav')).toEqual(bytes(4, 5, 6))
    })

    it('replaces a value on put, and answers null for a key that does not exist', async () => {
      const store = await fresh()
      await store.put('k/v', bytes(1))
      await store.put('k/v', bytes(2, 2))
      expect(await store.get('k/v')).toEqual(bytes(2, 2))
      expect(await store.get('k/none')).toBeNull()
    })

    it('deletes, and deleting a missing key is not an error', async () => {
      const store = await fresh()
      await store.put('k/v', bytes(1))
      await store.delete('k/v')
      expect(await store.get('k/v')).toBeNull()
      await store.delete('k/v')
    })

    it('lists every key under a folder, and none outside it', async () => {
      const store = await fresh()
      for (const key of ['models/a/1', 'models/a/deep/2', 'models/ab/3', 'other/4']) await store.put(key, bytes(0))
      expect((await store.list('models/a/')).sort()).toEqual(['models/a/1', 'models/a/deep/2'])
      expect((await store.list('models/')).sort()).toEqual(['models/a/1', 'models/a/deep/2', 'models/ab/3'])
      expect(await store.list('none/')).toEqual([])
    })

    it('lists only keys written before a given time, when asked', async () => {
      const store = await fresh()
      const before = Date.now() - 60_000
      await store.put('models/a/1', bytes(0))
      expect(await store.list('models/', { writtenBefore: Date.now() + 60_000 })).toEqual(['models/a/1'])
      expect(await store.list('models/', { writtenBefore: before })).toEqual([])
    })

    it('refuses keys that could leave its space', async () => {
      const store = await fresh()
      for (const key of ['../x', 'a/../../x', '/abs', 'a//b', 'a/./b', 'sp ace', '']) {
        await expect(store.put(key, bytes(1)), key).rejects.toThrow(/invalid blob key/)
        await expect(store.get(key), key).rejects.toThrow(/invalid blob key/)
        await expect(store.delete(key), key).rejects.toThrow(/invalid blob key/)
      }
    })

    check('atomic', 'leaves nothing when a streamed put fails or is aborted half-way', async () => {
      const store = await fresh()
      await store.put('k/old', bytes(7))
      async function* failing(): AsyncGenerator<Uint8Array> {
        yield bytes(1)
        throw new Error('source broke')
      }
      await expect(store.put('k/new', failing())).rejects.toThrow('source broke')
      await expect(store.put('k/old', failing())).rejects.toThrow('source broke')
      const controller = new AbortController()
      async function* aborted(): AsyncGenerator<Uint8Array> {
        yield bytes(1)
        controller.abort()
        yield bytes(2)
      }
      await expect(store.put('k/cut', aborted(), { signal: controller.signal })).rejects.toThrow()
      expect(await store.get('k/new')).toBeNull()
      expect(await store.get('k/cut')).toBeNull()
      expect(await store.get('k/old')).toEqual(bytes(7))
      expect((await store.list('k/')).sort()).toEqual(['k/old'])
    })
  })
}
