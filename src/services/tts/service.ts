import type { AudioEncoder, AudioFormat, EncoderSession } from '../../audio/types.js'
import { getEncoder, outputSampleRate } from '../../audio/encoders/registry.js'
import type { Principal } from '../../principal.js'
import { isSsml, planText, readSsml, type Pronunciations } from '../../text/index.js'
import type { TextChunk } from '../../text/types.js'
import type { TtsParams } from './params.js'
import { renderSpeech, type RenderEvent } from './render.js'
import type { Stretcher, VoiceChooser, StretchStreamFactory } from './voice-plan.js'

/** Resolves `reference_id` / `references` to a voice per (speaker, language); 404 for unknown ids, before any audio. */
export type VoiceResolver = (
  params: TtsParams,
  principal: Principal,
  needs: readonly { speaker: number; language: string }[],
  signal?: AbortSignal,
) => Promise<VoiceChooser>

/** A request checked and planned, ready to render; nothing has been synthesized yet. */
export interface PreparedSpeech {
  readonly chunks: readonly TextChunk[]
  readonly encoder: AudioEncoder
  readonly outputRate: number
  newEncoderSession(): EncoderSession
  /**
   * `dueAt`: when the listener needs the first audio (`performance.now()` ms; default now); `words: false`:
   * the caller ignores the alignment events' words. See `RenderOptions`.
   */
  render(signal?: AbortSignal, dueAt?: number, words?: boolean): AsyncGenerator<RenderEvent>
}

export { nothingToSpeak } from './nothing-to-speak.js'

export interface TtsService {
  prepare(params: TtsParams, principal: Principal, signal?: AbortSignal): Promise<PreparedSpeech>
}

export interface TtsServiceDeps {
  readonly resolveVoices: VoiceResolver
  /** Languages of the voice the request names, preferred by language detection (see `decideLanguage`). */
  readonly voiceLanguages?: (params: TtsParams, principal: Principal) => Promise<readonly string[] | undefined>
  readonly stretch?: Stretcher
  readonly stretchStream?: StretchStreamFactory
  /** Encoders replacing the built-in ones, by format (tests). */
  readonly encoders?: Partial<Record<AudioFormat, AudioEncoder>>
  /** An engine spoke `seconds` of audio for a request (see `RenderOptions.onAudio`). */
  readonly onAudio?: (engineId: string, seconds: number) => void
  /** The `loudnessTarget` setting (see `RenderOptions.targetLufs`). */
  readonly targetLufs?: number
  /** The operator's lexicon (setting `pronunciations`). */
  readonly pronunciations?: Pronunciations
}

export function createTtsService(deps: TtsServiceDeps): TtsService {
  return {
    async prepare(request, principal, signal) {
      // A whole text may be an SSML document; a piece of a stream (a live session's phrase) is always text.
      const params = !request.presplit && isSsml(request.text) ? fromSsml(request) : request
      const encoder = deps.encoders?.[params.format] ?? getEncoder(params.format)
      const outputRate = outputSampleRate(encoder, params.sampleRate)
      const voiceLanguages = params.languageHint ? undefined : await deps.voiceLanguages?.(params, principal)
      const plan = (latency: TtsParams['latency']) => planText(params.text, {
        dialect: params.dialect,
        normalize: params.normalize,
        chunkLength: params.chunkLength,
        minChunkLength: params.minChunkLength,
        latency,
        ...(params.languageHint && { languageHint: params.languageHint }),
        ...(params.defaultLanguage && { defaultLanguage: params.defaultLanguage }),
        ...(voiceLanguages && { voiceLanguages }),
        ...(deps.pronunciations && { pronunciations: deps.pronunciations }),
      })
      let chunks = plan(params.latency)
      const needs = chunks.map((c) => ({ speaker: c.speaker, language: c.language }))
      // With no text yet (a live session's start), still check the voices, for English.
      const chooseVoice = await deps.resolveVoices(params, principal, needs.length > 0 ? needs : [{ speaker: 0, language: 'en' }], signal)
      // `balanced` trades first-audio time for fewer joins; when this request's first chunk would queue for a
      // busy engine, it gets `low`'s short first phrase (same speakers and languages, so the voices stand).
      const first = chunks[0]
      if (params.latency === 'balanced' && !params.presplit && first && chooseVoice(first.speaker, first.language).engine.saturated?.()) {
        chunks = plan('low')
      }
      return {
        chunks,
        encoder,
        outputRate,
        newEncoderSession: () => encoder.create({ sampleRate: outputRate, ...(params.bitrate !== undefined && { bitrate: params.bitrate }) }),
        render: (renderSignal, dueAt, words) =>
          renderSpeech({
            chunks,
            params,
            outputRate,
            chooseVoice,
            ...(deps.stretch && { stretch: deps.stretch }),
            ...(deps.stretchStream && { stretchStream: deps.stretchStream }),
            ...(renderSignal && { signal: renderSignal }),
            ...(dueAt !== undefined && { dueAt }),
            ...(deps.onAudio && { onAudio: deps.onAudio }),
            ...(words === false && { words }),
            ...(deps.targetLufs !== undefined && { targetLufs: deps.targetLufs }),
          }),
      }
    },
  }
}

/**
 * The request with its SSML document read: the text in Parla's markup, and each `<voice name>` as a speaker
 * after the request's own (its `reference_id`s and `references`), speaking with that voice model.
 */
function fromSsml(params: TtsParams): TtsParams {
  const own = Math.max(1, params.referenceIds.length, params.references.length)
  const { text, voices } = readSsml(params.text, own)
  if (voices.length === 0) return { ...params, text }
  const ownIds = Array.from({ length: own }, (_, i) => params.referenceIds[i] ?? '')
  return { ...params, text, referenceIds: [...ownIds, ...voices] }
}
