/**
 * Test and benchmark helper: festival (slt HTS voice) speech for known passages, cached under
 * os.tmpdir() so synthesis is paid once per machine.
 */
import { writeFile } from 'node:fs/promises'
import type { AudioBuffer } from '../../src/audio/types.js'
import { speak } from './asr-speech.js'
import { parseWav, toWav } from './wav.js'

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

/** Festival slt speech for `text` (32 kHz), cached by content (the same cache as the ASR tests'). */
export const speech = (text: string): Promise<AudioBuffer> => speak(text)

/** Writes 16-bit WAV bytes, handy when listening to a failing case. */
export async function saveWav(path: string, samples: Float32Array, sampleRate: number): Promise<void> {
  await writeFile(path, toWav(samples, sampleRate))
}
