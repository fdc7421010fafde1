import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { decodeAudio } from './decode.js'
import { neutralizeDiscardPadding } from './webm-padding.js'

const run = promisify(execFile)
let dir: string
/** Two minutes of a 440 Hz tone as WebM/Opus and as Ogg Opus, both from ffmpeg. */
let webm: Uint8Array
let ogg: Uint8Array

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'parla-webm-'))
  const encode = async (name: string) => {
    const file = join(dir, name)
    const tone = ['-f', 'lavfi', '-i', 'sine=frequency=440:duration=120']
    await run('ffmpeg', ['-loglevel', 'error', ...tone, '-c:a', 'libopus', '-b:a', '24k', file])
    return new Uint8Array(await readFile(file))
  }
  ;[webm, ogg] = await Promise.all([encode('tone.webm'), encode('tone.opus')])
})

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true })
})

describe('WebM DiscardPadding', () => {
  it('becomes a Void element of the same length in a copy; the input is left alone', () => {
    const before = Buffer.from(webm)
    const { bytes, discardNs } = neutralizeDiscardPadding(webm)
    expect(discardNs).toBeGreaterThan(0)
    expect(discardNs).toBeLessThan(20e6) // less than one 20 ms frame
    expect(Buffer.from(webm).equals(before)).toBe(true)
    expect(bytes.length).toBe(webm.length)
    const changed: number[] = []
    for (let i = 0; i < bytes.length; i++) if (bytes[i] !== webm[i]) changed.push(i)
    expect(changed.length).toBeGreaterThan(0)
    expect(changed.length).toBeLessThanOrEqual(3)
    expect(bytes[changed[0]!]).toBe(0xec)
  })

  it('leaves files without DiscardPadding as they are', () => {
    const plain = neutralizeDiscardPadding(ogg)
    expect(plain.bytes).toBe(ogg)
    expect(plain.discardNs).toBe(0)
  })

  it('two minutes of WebM/Opus decode promptly and to exactly the Ogg Opus samples', async () => {
    // Before the workaround this took about 45 s (quadratic in the length).
    const fromWebm = await decodeAudio(webm, { timeoutMs: 15_000 })
    const fromOgg = await decodeAudio(ogg)
    expect(fromWebm.format).toBe('webm')
    expect(fromWebm.sampleRate).toBe(48_000)
    expect(fromWebm.samples.length).toBe(fromOgg.samples.length)
    expect(fromWebm.samples.length).toBe(120 * 48_000)
    const bytesOf = (x: Float32Array) => Buffer.from(x.buffer, x.byteOffset, x.byteLength)
    expect(bytesOf(fromWebm.samples).equals(bytesOf(fromOgg.samples))).toBe(true)
  })
})
