import type { TtsEngine, TtsVoice } from '../engines/tts/types.js'
import { SpeechError } from '../errors.js'
import type { EngineSet } from '../engines/tts/engine-set.js'

/** The account that owns the built-in voice models; shown as author `parla`. */
export const PARLA_ACCOUNT = { id: 'parla', nickname: 'parla' } as const

/** Built-in voice model ids: `<engine>-<voice>`, lower case, e.g. `festival-slt`, `espeak-ng-en-us`. */
export const builtinModelId = (engineId: string, voiceId: string) => `${engineId}-${voiceId}`.toLowerCase().replace(/[^a-z0-9-]+/g, '-')

export interface BuiltinVoice {
  readonly modelId: string
  readonly engineId: string
  readonly voice: TtsVoice
}

/** The voice that speaks a language when the request names none: festival for English, eSpeak NG otherwise. */
export const DEFAULT_VOICES: Readonly<Record<string, string>> = { en: 'festival-slt' }
const FALLBACK = 'festival-slt'

/** Every engine voice as a built-in voice model. Starts the engines. */
export async function listBuiltinVoices(engines: EngineSet): Promise<BuiltinVoice[]> {
  const all = await engines.startAll()
  return all.flatMap((engine) => engine.voices().map((voice) => ({ modelId: builtinModelId(engine.id, voice.id), engineId: engine.id, voice })))
}

/** Finds built-in voices by model id and by language, starting engines only when needed. */
export function createBuiltinCatalog(engines: EngineSet) {
  let byLanguage: Map<string, string> | undefined

  // Not cached: an engine's voices may change while the server runs (model packages added or removed).
  const find = async (modelId: string): Promise<{ engine: TtsEngine; voice: TtsVoice } | null> => {
    const engineId = engines.ids.filter((id) => modelId.startsWith(`${id}-`)).sort((a, b) => b.length - a.length)[0]
    if (!engineId) return null
    const engine = await engines.get(engineId)
    const voice = engine.voices().find((v) => builtinModelId(engineId, v.id) === modelId)
    return voice ? { engine, voice } : null
  }

  return {
    find,
    /** The default voice model id for a language code (`en`, `de`, `zh`, `pt-br`, …). */
    async defaultFor(language: string): Promise<string> {
      const base = language.toLowerCase().split('-')[0]!
      byLanguage ??= await languageIndex(engines)
      const id = DEFAULT_VOICES[base] ?? byLanguage.get(language.toLowerCase()) ?? byLanguage.get(base) ?? FALLBACK
      return (await find(id)) ? id : firstVoice(engines)
    },
  }
}

export type BuiltinCatalog = ReturnType<typeof createBuiltinCatalog>

/** With other engines than the built-in ones (tests): the first voice of the first engine. */
async function firstVoice(engines: EngineSet): Promise<string> {
  for (const id of engines.ids) {
    const voice = (await engines.get(id)).voices()[0]
    if (voice) return builtinModelId(id, voice.id)
  }
  throw new SpeechError('not_found', '[tts] no engine has a voice')
}

/** language → eSpeak NG voice model id, exact codes first, then base codes. */
async function languageIndex(engines: EngineSet): Promise<Map<string, string>> {
  const index = new Map<string, string>()
  if (!engines.ids.includes('espeak-ng')) return index
  const espeak = await engines.get('espeak-ng')
  for (const voice of espeak.voices()) {
    for (const lang of voice.languages) {
      const code = lang.toLowerCase()
      if (!index.has(code)) index.set(code, builtinModelId(espeak.id, voice.id))
    }
  }
  for (const [code, id] of [...index]) {
    const base = code.split('-')[0]!
    if (!index.has(base)) index.set(base, id)
  }
  return index
}

/** Whether a voice speaks a language, comparing base codes (`en-gb` speaks `en`). */
export const speaks = (languages: readonly string[], language: string) => {
  const base = language.toLowerCase().split('-')[0]
  return languages.some((l) => l.toLowerCase() === language.toLowerCase() || l.toLowerCase().split('-')[0] === base)
}
