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
  let current: StreamingEvent = { audio_base64: '', content: '', alignment: null, chunk_seq: 0, chunk_audio_offset_sec: 0 }
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
    const alignment = event.segments.length > 0 || event.audioDurationSec > 0 ? { segments: event.segments, audio_duration: round(event.audioDurationSec) } : null
    const sameChunk = event.seq === current.chunk_seq
    current = { audio_base64: '', content: event.content, alignment, chunk_seq: event.seq, chunk_audio_offset_sec: round(event.offsetSec) }
    if (!sameChunk) sentSnapshot = null
    // A grown snapshot with no new audio yet still goes out, so timing is never held back behind a codec buffer.
    if (alignment && event.segments.length > 0 && JSON.stringify(alignment) !== sentSnapshot) yield message(new Uint8Array(0))
  }
  const last = session.end()
  if (last.length > 0 || sentSnapshot !== JSON.stringify(current.alignment)) yield message(last)
}

const round = (sec: number) => Math.round(sec * 1_000_000) / 1_000_000
