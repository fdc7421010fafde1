/**
 * Test and benchmark helper: festival (slt HTS voice) speech for known sentences, cached under
 * os.tmpdir() so each test file pays for synthesis once per machine.
 */
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { AudioBuffer } from '../../src/audio/types.js'
import { parseWav, toWav } from './wav.js'

export { parseWav, toWav }

/** Everyday sentences (pooled WER is measured over these); the ASR tests of every layer speak these. */
export const SENTENCES = [
  'The train to the city leaves every morning at eight.',
  'Please remember to buy milk and bread on your way home.',
  'My brother works at a small hospital near the river.',
  'We are going to visit our friends next weekend.',
  'The children played in the park until it got dark.',
  'Can you tell me where the nearest post office is?',
  'She opened the window because the room was too warm.',
  'It has been raining all day and the streets are wet.',
  'I would like a cup of coffee with a little sugar.',
  "The meeting has been moved to three o'clock on Friday.",
  'He forgot his keys and had to wait outside the door.',
  'Our neighbors have a large dog that barks at night.',
  'The store on the corner sells fresh fruit and vegetables.',
  'They watched a funny movie and laughed the whole time.',
  'Turn left at the next street and drive for two miles.',
  'The teacher asked the students to read the first chapter.',
  'We need to finish this report before the end of the week.',
  'My phone battery is almost empty so I will call you later.',
  'The weather should be sunny and warm tomorrow afternoon.',
  'She has lived in the same house for twenty years.',
  'Dinner will be ready in about fifteen minutes.',
  'The bus was late again this morning because of the traffic.',
  'He likes to read the newspaper while he eats breakfast.',
  'Please close the door quietly when you leave the office.',
] as const

const VOICE = '(voice_cmu_us_slt_arctic_hts)'

function runText2wave(text: string, outFile: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('text2wave', ['-eval', VOICE, '-o', outFile], { stdio: ['pipe', 'ignore', 'pipe'] })
    let err = ''
    child.stderr.on('data', (d: Buffer) => { err += d.toString() })
    child.on('error', reject)
    child.on('close', (code) => {
      if (code === 0) resolve()
      else reject(new Error(`text2wave exited ${code}: ${err}`))
    })
    child.stdin.end(text)
  })
}

const cacheDir = join(tmpdir(), 'parla-asr-test-speech')

/** Festival speech for `text` (32 kHz as festival makes it), synthesised once and cached. */
export async function speak(text: string): Promise<AudioBuffer> {
  const key = createHash('sha1').update(VOICE + text).digest('hex').slice(0, 16)
  const file = join(cacheDir, `${key}.wav`)
  try {
    return parseWav(await readFile(file))
  } catch {
    await mkdir(cacheDir, { recursive: true })
    const partial = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.wav`
    await runText2wave(text, partial)
    await rename(partial, file)
    return parseWav(await readFile(file))
  }
}

/** Speech for every sentence, two syntheses at a time (the test machines have two cores). */
export function speakAll(texts: readonly string[]): Promise<AudioBuffer[]> {
  return twoAtATime(texts, speak)
}

/** `fn` over `items`, two calls at a time, results in order. */
export async function twoAtATime<T, R>(items: readonly T[], fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length)
  let next = 0
  const lane = async () => {
    while (next < items.length) {
      const i = next++
      out[i] = await fn(items[i]!)
    }
  }
  await Promise.all([lane(), lane()])
  return out
}

export async function writeWav(file: string, samples: Float32Array, sampleRate: number): Promise<void> {
  await writeFile(file, toWav(samples, sampleRate))
}

/** Where the sound in a clip starts and ends (seconds): first and last sample above 2 % of the peak. */
export function soundBounds(samples: Float32Array, sampleRate: number): { start: number, end: number } {
  let peak = 0
  for (const s of samples) peak = Math.max(peak, Math.abs(s))
  const threshold = peak * 0.02
  let first = 0
  let last = samples.length - 1
  while (first < samples.length && Math.abs(samples[first]!) <= threshold) first++
  while (last > first && Math.abs(samples[last]!) <= threshold) last--
  return { start: first / sampleRate, end: (last + 1) / sampleRate }
}

export interface Program {
  readonly samples: Float32Array
  readonly sampleRate: number
  /** Where each clip's sound lies in the program, seconds. */
  readonly truth: { start: number, end: number, text: string }[]
}

/** Clips joined with `gapSeconds` of digital silence before each one. */
export function buildProgram(
  clips: readonly AudioBuffer[], texts: readonly string[], gapSeconds: number,
): Program {
  const sampleRate = clips[0]!.sampleRate
  const gap = Math.round(gapSeconds * sampleRate)
  const total = clips.reduce((n, c) => n + gap + c.samples.length, 0)
  const samples = new Float32Array(total)
  const truth: Program['truth'] = []
  let at = 0
  clips.forEach((clip, i) => {
    if (clip.sampleRate !== sampleRate) throw new Error('buildProgram: clips differ in sample rate')
    at += gap
    samples.set(clip.samples, at)
    const b = soundBounds(clip.samples, sampleRate)
    truth.push({ start: at / sampleRate + b.start, end: at / sampleRate + b.end, text: texts[i]! })
    at += clip.samples.length
  })
  return { samples, sampleRate, truth }
}
