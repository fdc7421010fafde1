import type { TtsVoice } from '../types.js'
import type { EspeakVoiceInfo } from './protocol.js'

/** A voice as Parla lists it, with the eSpeak identifier to load. */
export interface EspeakVoice extends TtsVoice {
  readonly identifier: string
}

/** `gmw/en-US` → `en-us`: the identifier without its language-family folder, lower case. */
export function voiceId(identifier: string): string {
  return identifier.slice(identifier.lastIndexOf('/') + 1).toLowerCase()
}

export function toVoices(infos: readonly EspeakVoiceInfo[]): EspeakVoice[] {
  return infos.map((v) => {
    const languages = new Set<string>()
    for (const l of v.languages) {
      languages.add(l)
      languages.add(l.split('-')[0]!)
    }
    return {
      id: voiceId(v.identifier),
      identifier: v.identifier,
      title: `${v.name} (eSpeak NG)`,
      languages: [...languages],
      gender: v.gender === 2 ? 'female' : v.gender === 1 ? 'male' : 'unknown',
      description: `${v.name}: eSpeak NG formant voice (${v.identifier}). Robotic but clear; fast, any length.`,
    }
  })
}

/**
 * eSpeak's pitch setting (0–100) against the measured shift in semitones from the default 50 (median F0 of
 * en-US, de and fr; the curve is the same for every voice within about 0.3 semitones).
 */
const PITCH_CURVE: readonly (readonly [number, number])[] = [
  [0, -6.7], [10, -5.67], [20, -4.5], [30, -3.06], [40, -1.65], [50, 0],
  [60, 1.7], [70, 3.5], [80, 5.36], [90, 7.28], [100, 8.96],
]

/** eSpeak pitch for a shift in semitones; shifts beyond about -6.7…+9 are clamped to the ends. */
export function pitchForSemitones(semitones: number): number {
  const first = PITCH_CURVE[0]!
  const last = PITCH_CURVE[PITCH_CURVE.length - 1]!
  if (semitones <= first[1]) return first[0]
  if (semitones >= last[1]) return last[0]
  for (let i = 1; i < PITCH_CURVE.length; i++) {
    const [p1, s1] = PITCH_CURVE[i]!
    const [p0, s0] = PITCH_CURVE[i - 1]!
    if (semitones <= s1) return Math.round(p0 + ((semitones - s0) / (s1 - s0)) * (p1 - p0))
  }
  return last[0]
}

/** eSpeak's default is 175 words per minute; it accepts 80–450. */
export function wordsPerMinute(rate: number): number {
  return Math.round(Math.min(450, Math.max(80, 175 * rate)))
}

/** The rate factors `wordsPerMinute` reaches without clamping. */
export const RATE_RANGE = [80 / 175, 450 / 175] as const
