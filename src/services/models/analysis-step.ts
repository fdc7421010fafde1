import { createHash } from 'node:crypto'
import type { AudioBuffer } from '../../audio/types.js'
import { isAbortError } from '../../errors.js'
import { analyzeVoice } from '../../voices/analysis.js'
import { assessQuality, isNoSpeechError } from '../../voices/quality.js'
import type { VoiceProfile } from '../../voices/types.js'
import { enhanceSample, type EnhanceDeps } from './enhance-step.js'
import { QUALITY_LIMITS } from './measure.js'
import { detectLanguage } from './media.js'
import { chooseProfile } from './train-mode.js'
import type { TrainingSample, TrainingStep } from './training.js'
import type { AudioQualityEntry, StoredSample } from '../../store/model-types.js'

/** Speech to text for a sample without a transcript; resolves to '' when nothing was recognised. */
export type SampleTranscriber = (audio: AudioBuffer, signal: AbortSignal) => Promise<string>

export interface AnalysisStepOptions extends EnhanceDeps {
  /** Least speech (voice-activity time) a sample needs, seconds. */
  readonly minSpeechSeconds: number
  /** English ASR for samples sent without `texts`; without it the syllable rate is estimated from the audio. */
  readonly transcribe?: SampleTranscriber
}

/** A sample that passed every check, with its profile. */
export interface AnalysedSample {
  readonly index: number
  readonly profile: VoiceProfile
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex')

/**
 * The voice-analysis training step, after the level checks: for each usable sample, optionally enhance it
 * (`enhance_audio_quality`), fill a missing transcript with ASR, measure its voice profile and judge it
 * (`too short`, `clipped`, `too noisy`, `no speech found`). Then `train_mode` decides the model's profile:
 * `fast` takes the best sample, `full` merges every passing sample and rejects outliers (train-mode.ts).
 */
export function analysisStep(options: AnalysisStepOptions): TrainingStep {
  return {
    name: 'analysis',
    async run(ctx) {
      const audios: AudioQualityEntry[] = [...ctx.audios]
      const stored: StoredSample[] = [...ctx.model.samples]
      const passed: AnalysedSample[] = []
      for (const index of ctx.usable) {
        ctx.signal.throwIfAborted()
        const sample = ctx.samples[index]!
        const entry = audios[index]!
        const { id, enhanceAudioQuality } = ctx.model
        const result = await analyseSample(id, enhanceAudioQuality, stored[index]!, sample, ctx.signal, options)
        if (result.text !== sample.text) stored[index] = { ...stored[index]!, text: result.text }
        const language = result.fromAsr && result.text ? 'en' : entry.language
        if ('failure' in result) {
          audios[index] = { ...entry, language, quality_passed: false, quality_reason: result.failure }
          continue
        }
        audios[index] = { ...entry, language, quality_passed: true, quality_reason: '' }
        passed.push({ index, profile: result.profile })
      }
      const languages = [...new Set(audios.map((a) => a.language).filter((l) => l && l !== 'unknown'))]
      if (passed.length === 0) return { audios, usable: [], samples: stored, languages }
      const choice = chooseProfile(ctx.model.trainMode, passed)
      for (const { index, reason } of choice.unused) {
        audios[index] = { ...audios[index]!, quality_passed: false, quality_reason: reason }
      }
      return { audios, usable: choice.used, profile: choice.profile, samples: stored, languages }
    },
  }
}

type SampleResult = { text: string; fromAsr: boolean } & ({ profile: VoiceProfile } | { failure: string })

async function analyseSample(
  modelId: string,
  enhance: boolean,
  stored: StoredSample,
  sample: TrainingSample,
  signal: AbortSignal,
  options: AnalysisStepOptions,
): Promise<SampleResult> {
  const audio = sample.audio!
  let samples = audio.samples
  let source = { key: stored.key, sha256: sha256(sample.bytes ?? new Uint8Array(0)) }
  if (enhance) {
    const enhanced = await enhanceSample(modelId, sample.index, audio, signal, options)
    samples = enhanced.samples
    source = { key: enhanced.key, sha256: enhanced.sha256 }
  }
  let text = sample.text.trim()
  let fromAsr = false
  if (!text && options.transcribe) {
    try {
      // Pocketsphinx hears English words in anything; a transcript that does not read as English (a sample in
      // another language, or not speech) would count syllables worse than the acoustic estimate.
      const heard = (await options.transcribe({ samples, sampleRate: audio.sampleRate }, signal)).trim()
      if (detectLanguage(heard) === 'en') {
        text = heard
        fromAsr = true
      }
    } catch (err) {
      // ASR is a refinement: without it the rate is estimated from the audio.
      if (signal.aborted || isAbortError(err)) throw err
    }
  }
  let profile: VoiceProfile
  try {
    profile = await analyzeVoice(samples, audio.sampleRate, { ...(text && { transcript: text }), signal })
  } catch (err) {
    if (!isNoSpeechError(err)) throw err
    return { text, fromAsr, failure: 'no speech found: the voice-activity detector found no voiced speech in the sample' }
  }
  const verdict = assessQuality(profile, {
    minSpeechSec: options.minSpeechSeconds,
    maxClippingRatio: QUALITY_LIMITS.maxClippingRatio,
  })
  if (!verdict.passed) return { text, fromAsr, failure: verdict.message }
  const durationSec = Math.round((audio.samples.length / audio.sampleRate) * 1000) / 1000
  return { text, fromAsr, profile: { ...profile, sources: [{ ...source, ...(text && { text }), durationSec }] } }
}
