import type { Config } from '../../config/schema.js'
import { createStretcher, stretchAndShift } from '../../audio/dsp/rubberband.js'
import { createBaseProfiles, type BaseProfiles } from '../../voices/base-profiles.js'
import { createBuiltinCatalog, type BuiltinCatalog } from '../../voices/builtin.js'
import { createReferenceProfiles, type ReferenceProfiles } from '../../voices/reference-profiles.js'
import { createEngineSet, type EngineSet } from '../../engines/tts/engine-set.js'
import { createTtsService, type TtsService } from './service.js'
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
export function createTtsStack(config: Config, lookupModel: ModelLookup): TtsStack {
  const engines = createEngineSet({ festivalProcesses: config.festivalProcesses })
  const catalog = createBuiltinCatalog(engines)
  const references = createReferenceProfiles()
  const baseProfiles = createBaseProfiles(catalog)
  const resolveVoices = createVoiceResolver({ catalog, baseProfiles, references, lookupModel })
  return {
    engines,
    catalog,
    references,
    baseProfiles,
    resolveVoices,
    tts: createTtsService({ resolveVoices, voiceLanguages: createVoiceLanguages({ catalog, lookupModel }), stretch: stretchAndShift, stretchStream: createStretcher }),
    close: () => engines.close(),
  }
}
