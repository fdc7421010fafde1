import { SpeechError } from '../../errors.js'
import type { Principal } from '../../principal.js'
import { chooseBaseVoice } from '../../voices/adaptation.js'
import { planAdaptation } from '../../voices/adaptation.js'
import type { BaseProfiles } from '../../voices/base-profiles.js'
import { ENGLISH_BASES } from '../../voices/base-profiles.js'
import { speaks, type BuiltinCatalog } from '../../voices/builtin.js'
import type { ReferenceProfiles } from '../../voices/reference-profiles.js'
import type { VoiceProfile } from '../../voices/types.js'
import type { TtsParams } from './params.js'
import { awaitTraining } from './training-wait.js'
import type { VoiceChooser, VoiceRender } from './voice-plan.js'
import type { VoiceAliases } from '../models/voice-aliases.js'
import type { VoiceRoutes } from './routes.js'
import type { ReferenceClip } from '../../engines/tts/types.js'

/** What TTS needs to know of a stored voice model. */
export interface UsableModel {
  readonly id: string
  readonly state: string
  readonly stateReason: string
  /** Built-in voice model id this model speaks with, if it is (or wraps) a built-in voice. */
  readonly builtinVoice: string | null
  readonly profile: VoiceProfile | null
  /** The model's voice samples and transcripts, for engines that clone from references. */
  readonly references?: () => Promise<readonly ReferenceClip[]>
}

/** Why a model cannot speak yet, by state (409). */
const NOT_READY: Record<string, (reason: string) => string> = {
  created: () => 'is still waiting to be trained (state: created) after the wait for training; try again shortly',
  training: () => 'is still training (state: training) after the wait for training; try again shortly',
  failed: (reason) => `failed training (state: failed): ${reason || 'no reason recorded'}; create it again with better samples`,
}

/** Reads a model the principal may use (own, public or unlisted); null when there is none. */
export type ModelLookup = (id: string, principal: Principal) => Promise<UsableModel | null>

/** A speaker's voice before the chunk language is known: a built-in voice, or a measured profile to imitate. */
type Spec = { readonly modelId: string; readonly builtin?: string; readonly profile?: VoiceProfile; readonly references?: readonly ReferenceClip[] }

export interface VoiceResolverDeps {
  readonly catalog: BuiltinCatalog
  readonly baseProfiles: BaseProfiles
  readonly references: ReferenceProfiles
  readonly lookupModel: ModelLookup
  /** How long a model still in training is waited for before the 409 (ms); default none. */
  readonly trainingWaitMs?: number
  /** Ids Parla does not have that stand for a voice it has (clients' default cloud voices). */
  readonly aliases?: Pick<VoiceAliases, 'resolve'>
  /** The configured default voice for a `model` header and language (`ttsRoutes`), if any. */
  readonly routes?: VoiceRoutes
}

/**
 * Turns `reference_id` (one, or one per speaker) and `references` into voices, before any audio is made:
 * an unknown id is a 404, an untrained model a 409 naming its state, bad reference audio a 422.
 * `reference_id` wins over `references` for the same speaker (as in fish-speech).
 */
export function createVoiceResolver(deps: VoiceResolverDeps) {
  const specFor = async (id: string, principal: Principal, model: string, language: string, signal?: AbortSignal, aliased = false, references?: readonly ReferenceClip[]): Promise<Spec> => {
    const builtin = await deps.catalog.find(id)
    // A voice that speaks only as a clone (ZipVoice) named directly takes the request's references.
    if (builtin) return { modelId: id, builtin: id, ...(builtin.voice.cloning === 'references' && references?.length && { references }) }
    const looked = await deps.lookupModel(id, principal)
    // One step only: an alias of an alias would not be what the setting says.
    const alias = looked || aliased ? undefined : deps.aliases?.resolve(id)
    if (alias !== undefined) return specFor(alias, principal, model, language, signal, true)
    const found = looked && (await awaitTraining(() => deps.lookupModel(id, principal), looked, deps.trainingWaitMs ?? 0, signal))
    if (!found) throw new SpeechError('reference_not_found', `Voice model '${id}' not found; list voices with GET /model`)
    if (found.state !== 'trained') {
      const why = NOT_READY[found.state]?.(found.stateReason) ?? `is in state ${found.state}`
      throw new SpeechError('not_ready', `Voice model '${id}' ${why}`)
    }
    if (found.builtinVoice) {
      // Its model package was removed (or, with several nodes, is installed on another node only).
      if (!(await deps.catalog.find(found.builtinVoice))) {
        throw new SpeechError('reference_not_found', `Voice model '${id}' is a built-in voice whose engine or model package is not installed on this server; see 'parla models list' or GET /model`)
      }
      return { modelId: id, builtin: found.builtinVoice }
    }
    // A trained voice on an engine that clones by itself: its samples and transcripts are the references.
    const cloner = found.references && await clonerFor(model, language)
    if (cloner) {
      const references = await found.references!()
      if (references.length > 0) return { modelId: id, builtin: cloner, references }
    }
    if (found.profile) return { modelId: id, profile: found.profile }
    throw new SpeechError('not_ready', `Voice model '${id}' has no voice profile; train it again`)
  }

  const defaultFor = async (model: string, language: string): Promise<string> => {
    const routed = deps.routes?.(model, language)
    if (!routed) return deps.catalog.defaultFor(language)
    const found = await deps.catalog.find(routed)
    if (!found) {
      throw new SpeechError('engine_failed', `ttsRoutes sends model '${model || '(none)'}' / language '${language}' to voice '${routed}', which is not installed; see 'parla models list' or GET /model`)
    }
    // A route to a voice that speaks only as a clone (ZipVoice) serves requests with references; without
    // them the language's default voice speaks.
    return found.voice.cloning === 'references' ? deps.catalog.defaultFor(language) : routed
  }

  /** The voice `ttsRoutes` picks for this header and language, when its engine clones from references. */
  const clonerFor = async (model: string, language: string): Promise<string | undefined> => {
    const routed = deps.routes?.(model, language)
    const found = routed ? await deps.catalog.find(routed) : null
    return found && (found.voice.cloning ?? found.engine.capabilities.cloning) === 'references' ? routed : undefined
  }

  const render = async (spec: Spec | undefined, language: string, model: string): Promise<VoiceRender> => {
    if (spec?.builtin) {
      const found = (await deps.catalog.find(spec.builtin))!
      if (spec.references) return { ...toRender(spec.modelId, found), references: spec.references }
      if (speaks(found.voice.languages, language)) return toRender(spec.modelId, found)
    }
    const fallbackId = await defaultFor(model, language)
    if (!spec?.profile) return toRender(spec?.modelId ?? fallbackId, (await deps.catalog.find(fallbackId))!)
    return adapted(spec.modelId, spec.profile, language, fallbackId)
  }

  const adapted = async (modelId: string, profile: VoiceProfile, language: string, fallbackId: string): Promise<VoiceRender> => {
    const ids = language.startsWith('en') ? [...ENGLISH_BASES] : [fallbackId]
    const candidates = await Promise.all(
      ids.map(async (id) => {
        const found = (await deps.catalog.find(id))!
        return { id, languages: found.voice.languages, profile: await deps.baseProfiles.get(id), found }
      }),
    )
    const choice = chooseBaseVoice(profile, candidates, language)?.candidate ?? candidates[0]!
    // Pitch goes through Rubber Band (exact). Tempo goes with it when Rubber Band runs anyway: HTS's own rate
    // control also moves the spectral envelope (measured: timbre distance to a time-stretched reference up to
    // 1.18 dB against 0.60-0.75 dB with Rubber Band, docs/voice-cloning.md); alone, the engine's control is used.
    const plan = planAdaptation(profile, choice.profile, { pitch: false, rate: choice.found.engine.capabilities.rate })
    const tempoByDsp = plan.pitchSemitones !== 0 || plan.formantScale !== 1
    const adaptation = { pitchSemitones: plan.pitchSemitones, rate: plan.rate, formantScale: plan.formantScale, gainDb: plan.gainDb, tempoByDsp }
    return { ...toRender(modelId, choice.found), adaptation }
  }

  return async (params: TtsParams, principal: Principal, needs: readonly { speaker: number; language: string }[], signal?: AbortSignal): Promise<VoiceChooser> => {
    const speakers = Math.max(params.referenceIds.length, params.references.length, 1)
    const specs: (Spec | undefined)[] = []
    for (let s = 0; s < speakers; s++) {
      const id = params.referenceIds[s]
      const refs = params.references[s]
      if (id) specs.push(await specFor(id, principal, params.model ?? '', needs[0]?.language ?? 'en', signal, false, refs))
      else if (refs && refs.length > 0) {
        // An engine that clones by itself (a fish-speech upstream, ZipVoice) takes the clips as they are.
        const cloner = await clonerFor(params.model ?? '', needs[0]?.language ?? 'en')
        if (cloner) {
          specs.push({ modelId: 'references', builtin: cloner, references: refs })
          continue
        }
        const loc = params.references.length > 1 ? ['body', 'references', String(s)] : ['body', 'references']
        specs.push({ modelId: 'references', profile: await deps.references.analyze(refs, loc, signal) })
      } else specs.push(undefined)
    }
    const chosen = new Map<string, VoiceRender>()
    for (const { speaker, language } of needs) {
      const key = `${speaker}\u0000${language}`
      if (!chosen.has(key)) chosen.set(key, await render(specs[speaker] ?? specs[0], language, params.model ?? ''))
    }
    return (speaker, language) => chosen.get(`${speaker}\u0000${language}`) ?? chosen.values().next().value!
  }
}

export type VoiceResolver = ReturnType<typeof createVoiceResolver>

/**
 * Languages of the built-in voice the first speaker's `reference_id` names (directly or through a trained
 * model), which language detection prefers when short text is ambiguous; undefined for cloned voices and
 * the default voice, which follow the text. Unknown ids are left to the resolver's 404.
 */
export function createVoiceLanguages(deps: Pick<VoiceResolverDeps, 'catalog' | 'lookupModel' | 'aliases'>) {
  return async (params: TtsParams, principal: Principal): Promise<readonly string[] | undefined> => {
    const named = params.referenceIds[0]
    if (!named) return undefined
    const builtin = (await deps.catalog.find(named)) ?? await (async () => {
      const model = await deps.lookupModel(named, principal)
      const alias = model ? undefined : deps.aliases?.resolve(named)
      if (alias !== undefined) return deps.catalog.find(alias)
      return model?.builtinVoice ? deps.catalog.find(model.builtinVoice) : undefined
    })()
    return builtin?.voice.languages
  }
}

const toRender = (modelId: string, found: { engine: VoiceRender['engine']; voice: { id: string; languages: readonly string[]; pitch?: boolean } }): VoiceRender => ({
  modelId,
  engine: found.engine,
  voiceId: found.voice.id,
  languages: found.voice.languages,
  ...(found.voice.pitch === false && { pitchControl: false }),
})
