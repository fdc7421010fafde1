import type { AsrResult } from '../../services/asr/service.js'
import type { TranscriptionInput } from './transcription-body.js'

const LANGUAGE_NAMES = new Intl.DisplayNames(['en'], { type: 'language' })

/** OpenAI's `verbose_json` names the language in English, lower case (`english`), not by code. */
export const languageName = (code: string) => (LANGUAGE_NAMES.of(code) ?? code).toLowerCase()

/** `00:01:02,345` (SRT) or `00:01:02.345` (WebVTT). */
function clock(sec: number, separator: ',' | '.'): string {
  const ms = Math.max(0, Math.round(sec * 1000))
  const pad = (n: number, w = 2) => String(n).padStart(w, '0')
  return `${pad(Math.floor(ms / 3_600_000))}:${pad(Math.floor(ms / 60_000) % 60)}:${pad(Math.floor(ms / 1000) % 60)}${separator}${pad(ms % 1000, 3)}`
}

export function toSrt(result: AsrResult): string {
  return result.segments.map((s, i) => `${i + 1}\n${clock(s.start, ',')} --> ${clock(s.end, ',')}\n${s.text}\n`).join('\n')
}

export function toVtt(result: AsrResult): string {
  return `WEBVTT\n\n${result.segments.map((s) => `${clock(s.start, '.')} --> ${clock(s.end, '.')}\n${s.text}\n`).join('\n')}`
}

/**
 * OpenAI's `verbose_json`. Fields a Whisper decoder has and pocketsphinx does not (`tokens`, log
 * probabilities, compression ratio) are present with neutral values so strict clients parse it.
 */
export function toVerboseJson(result: AsrResult, input: TranscriptionInput) {
  return {
    task: 'transcribe',
    language: languageName(result.language),
    duration: result.duration,
    text: result.text,
    ...(input.segments && {
      segments: result.segments.map((s, id) => ({
        id, seek: 0, start: s.start, end: s.end, text: s.text, tokens: [], temperature: 0,
        avg_logprob: 0, compression_ratio: 1, no_speech_prob: 0,
      })),
    }),
    ...(input.words && { words: result.words ?? [] }),
    usage: { type: 'duration', seconds: Math.ceil(result.duration) },
  }
}

/** The body and content type for a non-streamed response. */
export function formatTranscript(result: AsrResult, input: TranscriptionInput): { type: string; body: string | object } {
  switch (input.format) {
    case 'text': return { type: 'text/plain; charset=utf-8', body: `${result.text}\n` }
    case 'srt': return { type: 'application/x-subrip; charset=utf-8', body: toSrt(result) }
    case 'vtt': return { type: 'text/vtt; charset=utf-8', body: toVtt(result) }
    case 'verbose_json': return { type: 'application/json; charset=utf-8', body: toVerboseJson(result, input) }
    default: return { type: 'application/json; charset=utf-8', body: { text: result.text, usage: { type: 'duration', seconds: Math.ceil(result.duration) } } }
  }
}
