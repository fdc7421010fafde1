import { describe, expect, it } from 'vitest'
import { DEFAULT_TURN } from '../../services/asr/live/turn-detector.js'
import { applyBetaSessionUpdate, applySessionUpdate, defaultConfig } from './realtime-config.js'

const update = (transcription: object, turnDetection?: unknown) =>
  ({ type: 'transcription', audio: { input: { transcription, ...(turnDetection !== undefined && { turn_detection: turnDetection }) } } })

describe('realtime transcription settings: who ends a turn', () => {
  it('server VAD by default, none for the models OpenAI serves without it (the client commits)', () => {
    expect(defaultConfig('gpt-4o-transcribe').turns).toEqual(DEFAULT_TURN)
    expect(defaultConfig('gpt-realtime-whisper').turns).toBeNull()
    expect(defaultConfig('gpt-live-transcribe-2026-05-01').turns).toBeNull()
  })

  it('an update naming such a model turns server VAD off, unless it asks for turn detection', () => {
    const start = defaultConfig('gpt-4o-transcribe')
    expect(applySessionUpdate(update({ model: 'gpt-realtime-whisper' }), start).turns).toBeNull()
    expect(applySessionUpdate(update({ model: 'gpt-realtime-whisper' }, { type: 'server_vad', silence_duration_ms: 700 }), start).turns)
      .toEqual({ ...DEFAULT_TURN, silenceMs: 700 })
    expect(applyBetaSessionUpdate({ input_audio_transcription: { model: 'gpt-live-transcribe' } }, start).turns).toBeNull()
    // Other models, and later updates that leave turn_detection out, keep what the session has.
    expect(applySessionUpdate(update({ model: 'whisper-1' }), start).turns).toEqual(DEFAULT_TURN)
    const chosen = applySessionUpdate(update({ model: 'gpt-realtime-whisper' }, { type: 'server_vad' }), start)
    expect(applySessionUpdate(update({ language: 'en' }), chosen).turns).toEqual(DEFAULT_TURN)
  })
})
