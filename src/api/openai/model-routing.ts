import type { Latency, TagDialect } from '../../text/types.js'

/** What an OpenAI `model` name selects in Parla. */
export interface ModelRoute {
  readonly latency: Latency
  readonly dialect: TagDialect
  /** Speak with this engine: an OpenAI voice name maps to its voice on this engine, or the engine's first. */
  readonly engine?: string
}

const DEFAULT: ModelRoute = { latency: 'balanced', dialect: 's2-pro' }

/**
 * OpenAI's speech models and Parla's own names. `tts-1` is OpenAI's low-latency model, `tts-1-hd` its
 * quality one: here that is fewer, longer text chunks (fewer joins) against a short first phrase. Any other
 * string is accepted, as OpenAI-compatible clients send whatever the user typed, and gets the default.
 */
const ROUTES: Readonly<Record<string, Partial<ModelRoute>>> = {
  'tts-1': { latency: 'balanced' },
  'tts-1-hd': { latency: 'normal' },
  'gpt-4o-mini-tts': { latency: 'balanced' },
  's2-pro': { dialect: 's2-pro' },
  's1': { dialect: 's1' },
}

export const SPEECH_MODELS = Object.keys(ROUTES)

export function routeModel(model: string, engineIds: readonly string[]): ModelRoute {
  const name = model.trim().toLowerCase()
  if (engineIds.includes(name)) return { ...DEFAULT, engine: name }
  return { ...DEFAULT, ...ROUTES[name] }
}
