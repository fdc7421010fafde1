/** Options shared by the offline and streaming Rubber Band wrappers. */
import { SpeechError } from '../../errors.js'
import { RB, type RubberBandModule } from './rubberband-module.js'

export interface StretchOptions {
  /** Output duration / input duration: 1.25 makes speech 25 % longer (slower). */
  readonly timeRatio: number
  /** Frequency ratio of the pitch: 2 is one octave up. Formants stay put unless `formantScale` moves them. */
  readonly pitchScale: number
  /**
   * Where the spectral envelope (formants) ends up, relative to the input: 1.15 moves the formants 15 % up,
   * independent of `pitchScale`. Default 1.
   */
  readonly formantScale?: number
  readonly signal?: AbortSignal
}

export function isIdentity(options: Omit<StretchOptions, 'signal'>): boolean {
  return options.timeRatio === 1 && options.pitchScale === 1 && (options.formantScale ?? 1) === 1
}

export function validateStretch(sampleRate: number, options: Omit<StretchOptions, 'signal'>): void {
  const { timeRatio, pitchScale, formantScale = 1 } = options
  const ok = (v: number, lo: number, hi: number) => Number.isFinite(v) && v >= lo && v <= hi
  const valid =
    ok(timeRatio, 0.25, 4) && ok(pitchScale, 0.25, 4) && ok(formantScale, 0.5, 2) && ok(sampleRate, 8000, 192000)
  if (!valid) {
    throw new SpeechError(
      'internal_error',
      `[rubberband] out of range: timeRatio ${timeRatio} (0.25..4), pitchScale ${pitchScale} (0.25..4), ` +
        `formantScale ${formantScale} (0.5..2), sampleRate ${sampleRate} (8000..192000)`,
    )
  }
}

/**
 * Rubber Band's own formant scale is relative to the pitch-shifted spectrum (its default under
 * FormantPreserved is 1 / pitchScale), so an absolute formant ratio is divided by the pitch ratio.
 */
export function newState(
  rb: RubberBandModule,
  sampleRate: number,
  options: Omit<StretchOptions, 'signal'>,
  extra = 0,
): number {
  const state = rb._rubberband_new(
    sampleRate,
    1,
    RB.engineFiner | RB.formantPreserved | extra,
    options.timeRatio,
    options.pitchScale,
  )
  if (!state) {
    throw new SpeechError('internal_error', '[rubberband] could not create a stretcher (out of wasm memory?)')
  }
  const formant = options.formantScale ?? 1
  if (formant !== 1) rb._rubberband_set_formant_scale(state, formant / options.pitchScale)
  return state
}
