import { SpeechError } from '../../errors.js'
import type { LiveRequest } from '../../services/asr/service.js'
import { DEFAULT_TURN } from '../../services/asr/live/turn-detector.js'
import { checkLiveRate } from '../../services/asr/live/input.js'

/** A transcription session's settings, in the shape OpenAI's `session.created/updated` carry. */
export interface RealtimeConfig {
  readonly rate: number
  readonly model: string
  readonly language: string | undefined
  readonly turns: LiveRequest['turns']
  readonly noiseReduction: unknown
}

/**
 * Models OpenAI serves without server-side turn detection: the client commits each turn (LiveKit's plugin
 * does so when its own VAD hears the speaker stop). A commit must then always find the audio since the last
 * one, so Parla's server VAD is off for them unless `turn_detection` asks for it.
 */
const CLIENT_COMMITTED = ['gpt-realtime-whisper', 'gpt-live-transcribe']
const clientCommits = (model: string) => CLIENT_COMMITTED.some((m) => model.startsWith(m))

/** OpenAI's default for a transcription session: 24 kHz PCM, server VAD (none for client-committed models). */
export const defaultConfig = (model: string): RealtimeConfig =>
  ({ rate: 24_000, model, language: undefined, turns: clientCommits(model) ? null : DEFAULT_TURN, noiseReduction: null })

/** The turn detection a session keeps when an update leaves `turn_detection` out. */
const keptTurns = (config: RealtimeConfig, model: string): RealtimeConfig['turns'] =>
  model !== config.model && clientCommits(model) ? null : config.turns

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** A field's problem; the wire names the field (`param`) and puts it before the message. */
const bad = (param: string, message: string) => {
  const msg = message.startsWith(`${param} `) ? message.slice(param.length + 1) : message
  return new SpeechError('validation_failed', `${param} ${msg}`, { issues: [{ loc: ['body', ...param.split('.')], msg, type: 'value_error' }] })
}

function turnsFrom(value: unknown, param: string, current: RealtimeConfig['turns']): RealtimeConfig['turns'] {
  if (value === undefined) return current
  if (value === null) return null
  if (!isObject(value) || (value.type !== 'server_vad' && value.type !== 'semantic_vad')) {
    throw bad(`${param}.type`, `${param}.type must be 'server_vad' or 'semantic_vad', or ${param} null`)
  }
  const base = current ?? DEFAULT_TURN
  const number = (key: string, min: number, max: number, fallback: number): number => {
    const v = value[key]
    if (v === undefined || v === null) return fallback
    if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max) throw bad(`${param}.${key}`, `${param}.${key} must be a number from ${min} to ${max}`)
    return v
  }
  // Semantic VAD asks the model whether the sentence is over; Parla's detector has only the pause to go by.
  return {
    threshold: number('threshold', 0, 1, base.threshold),
    silenceMs: number('silence_duration_ms', 0, 10_000, base.silenceMs),
    prefixPaddingMs: number('prefix_padding_ms', 0, 5000, base.prefixPaddingMs),
  }
}

function formatRate(format: unknown, param: string, current: number): number {
  if (format === undefined) return current
  if (!isObject(format)) throw bad(param, `${param} must be an object such as {"type": "audio/pcm", "rate": 24000}`)
  if (format.type !== undefined && format.type !== 'audio/pcm') {
    throw bad(`${param}.type`, `${param}.type ${JSON.stringify(format.type)} is not supported; send 16-bit PCM as 'audio/pcm'`)
  }
  if (format.rate === undefined) return current
  try {
    return checkLiveRate(format.rate, `${param}.rate`)
  } catch (err) {
    throw bad(`${param}.rate`, (err as Error).message)
  }
}

function transcriptionFrom(value: unknown, param: string, config: RealtimeConfig): Pick<RealtimeConfig, 'model' | 'language'> {
  if (value === undefined || value === null) return config
  if (!isObject(value)) throw bad(param, `${param} must be an object with "model" and "language"`)
  if (value.model !== undefined && typeof value.model !== 'string') throw bad(`${param}.model`, `${param}.model must be a string`)
  if (value.language !== undefined && value.language !== null && typeof value.language !== 'string') {
    throw bad(`${param}.language`, `${param}.language must be a language code such as 'en'`)
  }
  return {
    model: (value.model as string | undefined) ?? config.model,
    language: value.language === null ? undefined : (value.language as string | undefined) ?? config.language,
  }
}

/** `session.update`'s session (GA shape, `type: "transcription"`) applied to `config`. */
export function applySessionUpdate(session: unknown, config: RealtimeConfig): RealtimeConfig {
  if (!isObject(session)) throw bad('session', 'session.update needs "session", an object')
  if (session.type !== 'transcription') {
    throw bad('session.type', `session.type must be 'transcription': Parla serves transcription sessions (connect with ?intent=transcription)`)
  }
  const audio = session.audio === undefined ? {} : session.audio
  if (!isObject(audio)) throw bad('session.audio', 'session.audio must be an object')
  const input = audio.input === undefined ? {} : audio.input
  if (!isObject(input)) throw bad('session.audio.input', 'session.audio.input must be an object')
  const transcription = transcriptionFrom(input.transcription, 'session.audio.input.transcription', config)
  return {
    rate: formatRate(input.format, 'session.audio.input.format', config.rate),
    ...transcription,
    turns: turnsFrom(input.turn_detection, 'session.audio.input.turn_detection', keptTurns(config, transcription.model)),
    noiseReduction: input.noise_reduction === undefined ? config.noiseReduction : input.noise_reduction,
  }
}

/** The older `transcription_session.update` (beta shape: `input_audio_format: "pcm16"` is 24 kHz). */
export function applyBetaSessionUpdate(session: unknown, config: RealtimeConfig): RealtimeConfig {
  if (!isObject(session)) throw bad('session', 'transcription_session.update needs "session", an object')
  const format = session.input_audio_format
  if (format !== undefined && format !== 'pcm16') {
    throw bad('session.input_audio_format', `session.input_audio_format ${JSON.stringify(format)} is not supported; send 'pcm16'`)
  }
  const transcription = transcriptionFrom(session.input_audio_transcription, 'session.input_audio_transcription', config)
  return {
    rate: format === 'pcm16' ? 24_000 : config.rate,
    ...transcription,
    turns: turnsFrom(session.turn_detection, 'session.turn_detection', keptTurns(config, transcription.model)),
    noiseReduction: session.input_audio_noise_reduction === undefined ? config.noiseReduction : session.input_audio_noise_reduction,
  }
}

/** The session as OpenAI describes a transcription session (`session.created` / `session.updated`). */
export function describeSession(id: string, config: RealtimeConfig) {
  const t = config.turns
  return {
    type: 'transcription' as const,
    id,
    object: 'realtime.transcription_session',
    audio: {
      input: {
        format: { type: 'audio/pcm', rate: config.rate },
        transcription: { model: config.model, language: config.language ?? null },
        turn_detection: t && { type: 'server_vad', threshold: t.threshold, prefix_padding_ms: t.prefixPaddingMs, silence_duration_ms: t.silenceMs },
        noise_reduction: config.noiseReduction ?? null,
      },
    },
    include: [],
  }
}

/** The same in the beta shape (`transcription_session.updated`). */
export function describeBetaSession(id: string, config: RealtimeConfig) {
  const t = config.turns
  return {
    id,
    object: 'realtime.transcription_session',
    input_audio_format: 'pcm16',
    input_audio_transcription: { model: config.model, language: config.language ?? null },
    turn_detection: t && { type: 'server_vad', threshold: t.threshold, prefix_padding_ms: t.prefixPaddingMs, silence_duration_ms: t.silenceMs },
    input_audio_noise_reduction: config.noiseReduction ?? null,
  }
}
