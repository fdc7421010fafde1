/**
 * Reference speakers for the voice-cloning tests: festival slt (cached WAVs from test/support/voice-speech.ts)
 * shifted in pitch and tempo with Rubber Band, as 16 kHz 16-bit WAV bytes like a client would upload.
 */
import { encode } from '@msgpack/msgpack'
import { resampleAll } from '../../src/audio/resample.js'
import { stretchAndShift } from '../../src/audio/dsp/rubberband.js'
import type { AudioBuffer } from '../../src/audio/types.js'
import { PASSAGES, parseWav, speech } from '../support/voice-speech.js'
import type { TestServer } from './app.js'
import { wavBytes } from './voice-audio.js'

export interface Reference {
  readonly audio: AudioBuffer
  readonly wav: Uint8Array
  readonly text: string
}

/** slt speaking PASSAGES.a (or `passage`), shifted by `semitones` and slowed by `timeRatio` (0.85 = faster). */
export function shiftedReference(semitones: number, timeRatio: number, passage: keyof typeof PASSAGES = 'a'): Promise<Reference> {
  return shiftedSpeech(semitones, timeRatio, PASSAGES[passage])
}

const shifted = new Map<string, Promise<Reference>>()

/** The same reference speaker (slt shifted) saying any text; made once per test file (Rubber Band is slow). */
export function shiftedSpeech(semitones: number, timeRatio: number, text: string): Promise<Reference> {
  const key = JSON.stringify([semitones, timeRatio, text])
  let made = shifted.get(key)
  if (!made) {
    made = shift(semitones, timeRatio, text)
    made.catch(() => shifted.delete(key))
    shifted.set(key, made)
  }
  return made
}

async function shift(semitones: number, timeRatio: number, text: string): Promise<Reference> {
  const slt = await speech(text)
  const shifted = await stretchAndShift(slt.samples, slt.sampleRate, { pitchScale: 2 ** (semitones / 12), timeRatio })
  const samples = resampleAll(shifted, slt.sampleRate, 16000)
  return { audio: { samples, sampleRate: 16000 }, wav: wavBytes(samples, 16000), text }
}

/** Decodes a 16-bit WAV answer (sizes may be 0xFFFFFFFF, as streamed). */
export const decodeWav = (bytes: Uint8Array): AudioBuffer => parseWav(bytes)

/** `POST /v1/tts` as MessagePack through inject; returns the status and body bytes. */
export async function ttsMsgpack(s: TestServer, body: Record<string, unknown>) {
  const res = await s.app.inject({
    method: 'POST',
    url: '/v1/tts',
    headers: { ...s.asAlice, 'content-type': 'application/msgpack' },
    payload: Buffer.from(encode({ format: 'wav', ...body })),
  })
  return { status: res.statusCode, bytes: new Uint8Array(res.rawPayload), json: () => res.json() as unknown }
}

export const pct = (measured: number, expected: number) => 100 * (measured / expected - 1)
