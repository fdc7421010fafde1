import { SpeechError } from '../../errors.js'
import type { TtsEngineFactory } from './types.js'

/**
 * Engine id → loader of its factory. Each engine lives in its own folder and is imported only when it is
 * used, so a server that runs only eSpeak NG never spawns festival or compiles flite. Adding an engine is
 * one line here.
 */
export const TTS_ENGINES: Readonly<Record<string, () => Promise<TtsEngineFactory>>> = {
  festival: async () => (await import('./festival/index.js')).createFestivalEngine,
  flite: async () => (await import('./flite/index.js')).createFliteEngine,
  'espeak-ng': async () => (await import('./espeak-ng/index.js')).createEspeakEngine,
  neural: async () => (await import('./neural/index.js')).createNeuralEngine,
  upstream: async () => (await import('./upstream/index.js')).createUpstreamEngine,
}

export function ttsEngineIds(): string[] {
  return Object.keys(TTS_ENGINES)
}

/** The factory for `id`; `not_found` for an unknown id. */
export async function loadTtsEngineFactory(id: string): Promise<TtsEngineFactory> {
  const load = Object.hasOwn(TTS_ENGINES, id) ? TTS_ENGINES[id] : undefined
  if (!load) {
    throw new SpeechError('not_found', `[tts] unknown engine "${id}"; known engines: ${ttsEngineIds().join(', ')}`)
  }
  return load()
}
