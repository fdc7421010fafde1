import { analyzeVoice } from './analysis.js'
import type { VoiceProfile } from './types.js'
import type { BuiltinCatalog } from './builtin.js'
import { voiceSampleRate, type TtsEngine } from '../engines/tts/types.js'
import { concatSamples } from '../audio/signal.js'

/**
 * Text each built-in voice speaks once to measure its profile: about 17 s of varied everyday sentences (a
 * statement, a question, lists). F0 and syllable rate move by a few per cent with the text (festival slt:
 * 170-176 Hz, 4.2-4.6 syllables/s over eight texts); this one sits near the middle for every English voice,
 * which the plan's pitch and tempo ratios depend on.
 */
const CALIBRATION_TEXT =
  'When the sunlight strikes raindrops in the air, they act as a prism and form a rainbow. ' +
  'We will meet again tomorrow morning at the station, if the weather is good. ' +
  'Could you tell me how to get to the nearest post office? ' +
  'My sister bought a new bicycle, and she rides it to work every day.'

/** Built-in voices that can stand in for a reference speaker, by language. English has several; others use eSpeak NG. */
export const ENGLISH_BASES = ['festival-slt', 'flite-rms', 'flite-awb', 'flite-slt', 'flite-kal16'] as const

/**
 * Measured profiles of built-in voices, computed once per process (about a second each) and shared by every
 * cloned voice.
 */
export function createBaseProfiles(catalog: BuiltinCatalog) {
  const profiles = new Map<string, Promise<VoiceProfile>>()
  const get = (modelId: string): Promise<VoiceProfile> => {
    let p = profiles.get(modelId)
    if (!p) {
      p = measure(catalog, modelId)
      p.catch(() => profiles.delete(modelId))
      profiles.set(modelId, p)
    }
    return p
  }
  return {
    get,
    /**
     * Measures the English bases one after another (a server calls this after start-up), so the first
     * cloning request does not wait 5-9 s for all five at once.
     */
    async warm(signal?: AbortSignal): Promise<void> {
      for (const id of ENGLISH_BASES) {
        if (signal?.aborted) return
        await get(id)
      }
    },
  }
}

export type BaseProfiles = ReturnType<typeof createBaseProfiles>

async function measure(catalog: BuiltinCatalog, modelId: string): Promise<VoiceProfile> {
  const found = await catalog.find(modelId)
  if (!found) throw new Error(`no built-in voice ${modelId}`)
  const samples = await speakAll(found.engine, found.voice.id, CALIBRATION_TEXT)
  return analyzeVoice(samples, voiceSampleRate(found.engine, found.voice.id), { transcript: CALIBRATION_TEXT })
}

async function speakAll(engine: TtsEngine, voice: string, text: string): Promise<Float32Array> {
  const parts: Float32Array[] = []
  for await (const piece of engine.synthesize({ text, voice })) parts.push(piece.samples)
  return concatSamples(parts)
}
