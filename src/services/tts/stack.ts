import type { Config } from '../../config/schema.js'
import { stretchAndShift } from '../../audio/dsp/rubberband.js'
import { createBaseProfiles } from '../../voices/base-profiles.js'
import { createBuiltinCatalog, type BuiltinCatalog } from '../../voices/builtin.js'
import { createReferenceProfiles, type ReferenceProfiles } from '../../voices/reference-profiles.js'
import { createEngineSet, type EngineSet } from './engines.js'
import { createTtsService, type TtsService } from './service.js'
import { createVoiceResolver, type ModelLookup } from './voice-resolver.js'

export interface TtsStack {
  readonly engines: EngineSet
  readonly catalog: BuiltinCatalog
  readonly references: ReferenceProfiles
  readonly tts: TtsService
  close(): Promise<void>
}

/** Engines, built-in voices, reference analysis and the TTS service, wired together. */
export function createTtsStack(config: Config, lookupModel: ModelLookup): TtsStack {
  const engines = createEngineSet({ festivalProcesses: config.festivalProcesses })
  const catalog = createBuiltinCatalog(engines)
  const references = createReferenceProfiles()
  const resolveVoices = createVoiceResolver({ catalog, baseProfiles: createBaseProfiles(catalog), references, lookupModel })
  return {
    engines,
    catalog,
    references,
    tts: createTtsService({ resolveVoices, stretch: stretchAndShift }),
    close: () => engines.close(),
  }
}
