import { measureLevels, qualityProblems } from './measure.js'
import type { TrainingStep } from './training.js'
import type { AudioQualityEntry } from '../../store/model-types.js'

export interface QualityStepOptions {
  readonly minSampleSeconds: number
  readonly maxSampleSeconds: number
}

/**
 * The first training step: measures every sample and decides whether it is usable. Fills
 * `quality.audios[i].quality` with the measurements and sets `quality_passed` / `quality_reason`.
 */
export function qualityStep(limits: QualityStepOptions): TrainingStep {
  return {
    name: 'quality',
    async run(ctx) {
      const audios: AudioQualityEntry[] = []
      const usable: number[] = []
      for (const sample of ctx.samples) {
        ctx.signal.throwIfAborted()
        const previous = ctx.audios[sample.index]
        const language = previous?.language ?? 'unknown'
        if (!sample.audio) {
          audios.push({
            filename: sample.filename,
            duration_ms: previous?.duration_ms ?? 0,
            language,
            quality: previous?.quality ?? { sample_rate: 0, channels: 0, format: 'unknown' },
            quality_passed: false,
            quality_reason: 'the stored sample could not be read or decoded',
          })
          continue
        }
        const { samples, sampleRate, channels, format, durationSec } = sample.audio
        const stats = measureLevels(samples, sampleRate)
        const problems = qualityProblems(stats, sampleRate)
        if (durationSec < limits.minSampleSeconds || durationSec > limits.maxSampleSeconds) {
          const range = `${limits.minSampleSeconds}–${limits.maxSampleSeconds} s`
          problems.unshift(`duration ${durationSec.toFixed(2)} s is outside ${range}`)
        }
        audios.push({
          filename: sample.filename,
          duration_ms: Math.round(durationSec * 1000),
          language,
          quality: {
            sample_rate: sampleRate,
            channels,
            format,
            peak: stats.peak,
            clipping_ratio: stats.clippingRatio,
            rms_dbfs: stats.rmsDbfs,
            silence_ratio: stats.silenceRatio,
            snr_db: stats.snrDb,
          },
          quality_passed: problems.length === 0,
          quality_reason: problems.join('; '),
        })
        if (problems.length === 0) usable.push(sample.index)
        // Measuring is CPU work; give the event loop a turn between samples.
        await new Promise((resolve) => setImmediate(resolve))
      }
      return { audios, usable }
    },
  }
}
