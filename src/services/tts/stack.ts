import type { Config } from '../../config/schema.js'
import { createStretcher, stretchAndShift } from '../../audio/dsp/rubberband.js'
import { createBaseProfiles, type BaseProfiles } from '../../voices/base-profiles.js'
import { createBuiltinCatalog, type BuiltinCatalog } from '../../voices/builtin.js'
import { createReferenceProfiles, type ReferenceProfiles } from '../../voices/reference-profiles.js'
import type { VoiceAliases } from '../models/voice-aliases.js'
import { createEngineSet, type EngineSet } from './engines.js'
import { createTtsService, type TtsService } from './service.js'
import { parseVoiceRoutes } from './routes.js'
import { createVoiceLanguages, createVoiceResolver, type ModelLookup, type VoiceResolver } from './voice-resolver.js'

export interface TtsStack {
  readonly engines: EngineSet
  readonly catalog: BuiltinCatalog
  readonly references: ReferenceProfiles
  /** Measured profiles of the built-in voices a cloned voice may be based on. */
  readonly baseProfiles: BaseProfiles
  /** `reference_id` / `references` → voices; what `tts` uses (tests and benchmarks inspect the choice). */
  readonly resolveVoices: VoiceResolver
  readonly tts: TtsService
  close(): Promise<void>
}

/** Engines, built-in voices, reference analysis and the TTS service, wired together. */
export function createTtsStack(config: Config, lookupModel: ModelLookup, aliases?: VoiceAliases): TtsStack {
  const engines = createEngineSet({ festivalProcesses: config.festivalProcesses })
  const catalog = createBuiltinCatalog(engines)
  const references = createReferenceProfiles()
  const baseProfiles = createBaseProfiles(catalog)
  const resolveVoices = createVoiceResolver({ catalog, baseProfiles, references, lookupModel, routes: parseVoiceRoutes(config.ttsRoutes), trainingWaitMs: config.trainingWaitSec * 1000, ...(aliases && { aliases }) })
  return {
    engines,
    catalog,
    references,
    baseProfiles,
    resolveVoices,
    tts: createTtsService({ resolveVoices, voiceLanguages: createVoiceLanguages({ catalog, lookupModel, ...(aliases && { aliases }) }), stretch: stretchAndShift, stretchStream: createStretcher }),
    close: () => engines.close(),
  }
}
