import type { ModelPackage } from '../../../models/types.js'
import type { TtsVoice } from '../types.js'

export interface NeuralVoice { readonly voice: TtsVoice; readonly pkg: ModelPackage; readonly speaker: number }

/** One voice per speaker: `<package>` for single-speaker models, `<package>-<speaker>` otherwise. */
export function builtinVoices(packages: readonly ModelPackage[]): NeuralVoice[] {
  return packages.flatMap((pkg) => pkg.speakers.map((name, speaker) => ({
    pkg,
    speaker,
    voice: {
      id: pkg.speakers.length > 1 ? `${pkg.id}-${name}` : pkg.id,
      title: pkg.speakers.length > 1 ? `${pkg.id} (${name})` : pkg.id,
      languages: pkg.speakerLanguages?.[speaker] ?? pkg.languages,
      gender: 'unknown' as const,
      description: `${pkg.family} model from modelsDir${pkg.speakers.length > 1 ? `, speaker ${speaker} (${name})` : ''}${pkg.clones ? ', speaks as a clone of reference audio and its transcript' : ''}`,
      ...(pkg.clones && { cloning: 'references' as const }),
      ...(pkg.broken && { unavailable: `model package ${pkg.id} is broken: ${pkg.note}` }),
    },
  })))
}
