import { readdir, readlink } from 'node:fs/promises'
import { describe, expect, it } from 'vitest'
import { bundle } from '../../../module-worker.js'
import { decoderArgs, alignerArgs } from './settings.js'
import { createPocketsphinxEngine } from './index.js'

/** Open descriptors of this process that point at /dev/null (what `-logfn /dev/null` used to open). */
async function devNullDescriptors(): Promise<number> {
  const fds = await readdir('/proc/self/fd')
  const targets = await Promise.all(fds.map((fd) => readlink(`/proc/self/fd/${fd}`).catch(() => '')))
  return targets.filter((t) => t === '/dev/null').length
}

/**
 * The library has one log FILE for the whole process. When each decoder's init replaced it (`-logfn`), a
 * decoder starting in one thread closed the FILE another thread was writing to: heap corruption that crashed
 * the process now and then when a worker thread ended. Decoders now leave the log off and open no file.
 */
describe('pocketsphinx logging', () => {
  it('decoders started in several threads open no log file', async () => {
    // Bundling the worker (esbuild, once per process) opens /dev/null for its own service: not counted.
    bundle(new URL('./worker.ts', import.meta.url))
    const before = await devNullDescriptors()
    const engine = createPocketsphinxEngine({ workers: 2 })
    try {
      await engine.ready()
      expect(await devNullDescriptors()).toBe(before)
    } finally {
      await engine.close()
    }
  })

  it('no decoder is asked to log to a file', () => {
    expect(decoderArgs('balanced')).not.toContain('-logfn')
    expect(alignerArgs()).not.toContain('-logfn')
  })
})
