import { decodeAudio } from '../../audio/decode.js'
import type { AsrEngine } from '../../engines/asr/types.js'
import { createPocketsphinxEngine } from '../../engines/asr/pocketsphinx/index.js'
import { invalidField } from '../../errors.js'
import { transcribe, type Transcript } from '../../asr/transcribe.js'

/** Spec limits for one `/v1/asr` request. */
export const MIN_AUDIO_SEC = 1
export const MAX_AUDIO_SEC = 60 * 60

export interface AsrRequest {
  readonly audio: Uint8Array
  readonly filename: string
  readonly language?: string
  /** Default true, as the Fish server documents; the SDKs send false to get segments. */
  readonly ignoreTimestamps?: boolean
}

export interface AsrResult extends Transcript {
  /** The language the audio was transcribed as. */
  readonly language: string
}

/** Speech to text for whole files. The engine starts on first use (its decoders load the model once each). */
export function createAsrService(options: { readonly workers: number; readonly engine?: () => AsrEngine }) {
  let engine: AsrEngine | undefined
  const getEngine = () =>
    (engine ??= options.engine?.() ?? createPocketsphinxEngine(options.workers > 0 ? { workers: options.workers } : {}))

  const languageFor = (requested: string | undefined, supported: readonly string[]): string => {
    if (requested === undefined || requested === 'auto') return supported[0]!
    const code = requested.toLowerCase().replace('_', '-')
    const match = supported.find((l) => l === code || l === code.split('-')[0])
    if (!match) {
      const msg = `language '${requested}' is not supported; supported: ${supported.join(', ')} (or omit it to detect)`
      throw invalidField(['body', 'language'], msg, 'enum')
    }
    return match
  }

  return {
    get engine() {
      return getEngine()
    },
    /** Starts the engine and waits until its decoders have loaded, so the first request is not slow. */
    async warm(): Promise<void> {
      const asr = getEngine() as AsrEngine & { ready?: () => Promise<void> }
      await asr.ready?.()
    },
    async transcribe(request: AsrRequest, signal?: AbortSignal): Promise<AsrResult> {
      const asr = getEngine()
      // Pocketsphinx has one model per language and no language identification, so "detected" means the
      // only installed language; the response says which one was used.
      const language = languageFor(request.language, asr.capabilities.languages)
      const decoded = await decodeAudio(request.audio, {
        loc: ['body', 'audio'],
        maxSeconds: MAX_AUDIO_SEC,
        ...(request.filename && { name: request.filename }),
        ...(signal && { signal }),
      })
      if (decoded.durationSec < MIN_AUDIO_SEC) {
        const msg = `audio is ${decoded.durationSec.toFixed(2)} s long; send at least ${MIN_AUDIO_SEC} second of audio`
        throw invalidField(['body', 'audio'], msg, 'too_short')
      }
      const result = await transcribe(asr, { samples: decoded.samples, sampleRate: decoded.sampleRate }, {
        language,
        timestamps: !(request.ignoreTimestamps ?? true),
        ...(signal && { signal }),
      })
      return { ...result, language }
    },
    async close() {
      await engine?.close()
    },
  }
}

export type AsrService = ReturnType<typeof createAsrService>
