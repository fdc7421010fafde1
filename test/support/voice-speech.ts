/**
 * Test and benchmark helper: festival (slt HTS voice) speech for known passages, cached under
 * os.tmpdir() so synthesis is paid once per machine.
 */
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { AudioBuffer } from '../../src/audio/types.js'
import { parseWav } from './wav.js'

export { parseWav }

/** About 10 s each when spoken by slt. */
export const PASSAGES = {
  a: 'The train to the city leaves every morning at eight. Please remember to buy milk and bread on your way ' +
    'home. My brother works at a small hospital near the river.',
  b: 'The children played in the park until it got dark. She opened the window because the room was too warm. ' +
    'It has been raining all day and the streets are wet.',
  c: 'Our neighbors have a large dog that barks at night. The store on the corner sells fresh fruit and ' +
    'vegetables. They watched a funny movie and laughed the whole time.',
} as const

const VOICE = '(voice_cmu_us_slt_arctic_hts)'


function text2wave(text: string, outFile: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('text2wave', ['-eval', VOICE, '-o', outFile], { stdio: ['pipe', 'ignore', 'pipe'] })
    let err = ''
    child.stderr.on('data', (d: Buffer) => { err += d.toString() })
    child.on('error', reject)
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`text2wave exited ${code}: ${err}`))))
    child.stdin.end(text)
  })
}

/** Festival slt speech for `text` (32 kHz), cached by content. */
export async function speech(text: string): Promise<AudioBuffer> {
  const dir = join(tmpdir(), 'parla-voices-test-speech')
  await mkdir(dir, { recursive: true })
  const file = join(dir, `${createHash('sha256').update(VOICE + text).digest('hex').slice(0, 24)}.wav`)
  try {
    return parseWav(new Uint8Array(await readFile(file)))
  } catch {
    const tmp = `${file}.${process.pid}.${Date.now()}.tmp.wav`
    await text2wave(text, tmp)
    await rename(tmp, file)
    return parseWav(new Uint8Array(await readFile(file)))
  }
}

/** Writes 16-bit WAV bytes, handy when listening to a failing case. */
export async function saveWav(path: string, samples: Float32Array, sampleRate: number): Promise<void> {
  const out = new Uint8Array(44 + samples.length * 2)
  const view = new DataView(out.buffer)
  const tag = (at: number, s: string) => { for (let i = 0; i < 4; i++) out[at + i] = s.charCodeAt(i) }
  tag(0, 'RIFF'); view.setUint32(4, 36 + samples.length * 2, true); tag(8, 'WAVE')
  tag(12, 'fmt '); view.setUint32(16, 16, true); view.setUint16(20, 1, true); view.setUint16(22, 1, true)
  view.setUint32(24, sampleRate, true); view.setUint32(28, sampleRate * 2, true)
  view.setUint16(32, 2, true); view.setUint16(34, 16, true)
  tag(36, 'data'); view.setUint32(40, samples.length * 2, true)
  for (let i = 0; i < samples.length; i++) {
    view.setInt16(44 + i * 2, Math.round(Math.max(-1, Math.min(1, samples[i]!)) * 32767), true)
  }
  await writeFile(path, out)
}
