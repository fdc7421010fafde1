import type { PreparedSpeech } from '../../services/tts/service.js'
import type { Segment } from '../../services/tts/timing.js'

/** The spec's streaming event, one per SSE message. */
export interface StreamingEvent {
  audio_base64: string
  content: string
  alignment: { segments: readonly Segment[]; audio_duration: number } | null
  chunk_seq: number
  chunk_audio_offset_sec: number
}

/**
 * SSE messages for `/v1/tts/stream/with-timestamp`. Every message carries the encoded audio produced since
 * the previous one (possibly empty) and the latest cumulative alignment snapshot of the current text chunk,
 * which replaces earlier ones for that `chunk_seq`. Concatenating `audio_base64` in order gives the whole
 * file. The stream ends without a terminal event, as the docs describe.
 */
export async function* sseEvents(speech: PreparedSpeech, signal: AbortSignal): AsyncGenerator<string> {
  const session = speech.newEncoderSession()
  // Codec priming a decoder plays before the first sample (mp3) moves every chunk later in the file.
  const leadSec = (speech.encoder.delaySamples ?? 0) / speech.outputRate
  let current: StreamingEvent = {
    audio_base64: '',
    content: '',
    alignment: null,
    chunk_seq: 0,
    chunk_audio_offset_sec: round(leadSec),
  }
  let sentSnapshot: string | null = null
  const message = (audio: Uint8Array) => {
    current.audio_base64 = Buffer.from(audio).toString('base64')
    sentSnapshot = JSON.stringify(current.alignment)
    return `data: ${JSON.stringify(current)}\n\n`
  }

  for await (const event of speech.render(signal)) {
    if (event.type === 'audio') {
      const bytes = session.push(event.samples)
      if (bytes.length > 0) yield message(bytes)
      continue
    }
    const hasSnapshot = event.segments.length > 0 || event.audioDurationSec > 0
    const alignment = hasSnapshot ? { segments: event.segments, audio_duration: round(event.audioDurationSec) } : null
    if (event.seq !== current.chunk_seq) {
      // The previous chunk's last snapshot goes out even when it has no words, so every chunk has its duration.
      if (current.alignment && JSON.stringify(current.alignment) !== sentSnapshot) yield message(new Uint8Array(0))
      sentSnapshot = null
    }
    current = {
      audio_base64: '',
      content: event.content,
      alignment,
      chunk_seq: event.seq,
      chunk_audio_offset_sec: round(leadSec + event.offsetSec),
    }
    // A grown snapshot with no new audio yet still goes out, so timing is never held back behind a codec buffer.
    const grown = alignment && event.segments.length > 0 && JSON.stringify(alignment) !== sentSnapshot
    if (grown) yield message(new Uint8Array(0))
  }
  const last = session.end()
  if (last.length > 0 || sentSnapshot !== JSON.stringify(current.alignment)) yield message(last)
}

const round = (sec: number) => Math.round(sec * 1_000_000) / 1_000_000
