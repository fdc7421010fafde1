import type { Config } from '../../config/schema.js'
import { createStretcher, stretchAndShift } from '../../audio/dsp/rubberband.js'
import { createBaseProfiles, type BaseProfiles } from '../../voices/base-profiles.js'
import { createBuiltinCatalog, type BuiltinCatalog } from '../../voices/builtin.js'
import { createReferenceProfiles, type ReferenceProfiles } from '../../voices/reference-profiles.js'
import type { VoiceAliases } from '../models/voice-aliases.js'
import type { AudioEncoder, AudioFormat } from '../../audio/types.js'
import { createEngineSet, type EngineSet } from '../../engines/tts/engine-set.js'
import type { TtsEngineRegistry } from '../../engines/tts/registry.js'
import type { Logger } from '../../logger.js'
import type { Pronunciations } from '../../text/index.js'
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

export interface TtsStackOptions {
  readonly config: Config
  readonly lookupModel: ModelLookup
  readonly logger: Logger
  /** Default: the built-in engines. */
  readonly engines?: TtsEngineRegistry
  /** Encoders replacing the built-in ones, by format. */
  readonly encoders?: Partial<Record<AudioFormat, AudioEncoder>>
  /** Ids Parla does not have that stand for a voice it has (clients' default cloud voices). */
  readonly aliases?: VoiceAliases
  /** An engine spoke `seconds` of audio for a request. */
  readonly onAudio?: (engineId: string, seconds: number) => void
  /** The operator's lexicon, read from the `pronunciations` file before anything was opened. */
  readonly pronunciations?: Pronunciations
}

/** Engines, built-in voices, reference analysis and the TTS service, wired together. */
export function createTtsStack({ config, lookupModel, logger, ...options }: TtsStackOptions): TtsStack {
  const engines = createEngineSet({ config, logger, ...(options.engines && { registry: options.engines }) })
  const catalog = createBuiltinCatalog(engines)
  const references = createReferenceProfiles()
  const baseProfiles = createBaseProfiles(catalog)
  const resolveVoices = createVoiceResolver({ catalog, baseProfiles, references, lookupModel, routes: parseVoiceRoutes(config.ttsRoutes), trainingWaitMs: config.trainingWaitSec * 1000, ...(options.aliases && { aliases: options.aliases }) })
  return {
    engines,
    catalog,
    references,
    baseProfiles,
    resolveVoices,
    tts: createTtsService({
      resolveVoices,
      ...(options.encoders && { encoders: options.encoders }),
      voiceLanguages: createVoiceLanguages({ catalog, lookupModel, ...(options.aliases && { aliases: options.aliases }) }),
      stretch: stretchAndShift,
      stretchStream: createStretcher,
      ...(options.onAudio && { onAudio: options.onAudio }),
      targetLufs: config.loudnessTarget,
      ...(options.pronunciations && { pronunciations: options.pronunciations }),
    }),
    close: () => engines.close(),
  }
}
