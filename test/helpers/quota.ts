import { toWav } from '../support/wav.js'

/** Seconds of audio in `asrRequestBody`. */
export const ASR_AUDIO_SEC = 3

/** A multipart ASR upload of a 3 s quiet tone (a known duration; the transcript does not matter here). */
export function asrRequestBody(field: 'audio' | 'file' = 'audio'): FormData {
  const rate = 16_000
  const samples = new Float32Array(ASR_AUDIO_SEC * rate)
  for (let i = 0; i < samples.length; i++) samples[i] = 0.05 * Math.sin((2 * Math.PI * 300 * i) / rate)
  const form = new FormData()
  form.append(field, new Blob([toWav(samples, rate)], { type: 'audio/wav' }), 'tone.wav')
  if (field === 'file') form.append('model', 'whisper-1')
  return form
}
