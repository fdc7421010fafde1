import type { PreparedSpeech } from '../../services/tts/service.js'
import { isAbortError, toSpeechError } from '../../errors.js'
import { openAiErrorBody } from '../openai-error-wire.js'
import { encodedAudio } from '../../services/tts/encoded-audio.js'

export interface SpeechUsage {
  input_tokens: number
  output_tokens: number
  total_tokens: number
}

/**
 * `stream_format: "sse"`: one `speech.audio.delta` event per piece of encoded audio (base64), then
 * `speech.audio.done` with usage. Parla has no tokens; usage counts input as ⌈characters / 4⌉ and output
 * as 20 ms audio frames, so clients that sum usage get stable, proportional figures. A failure after the
 * first event is sent as an `error` event in the OpenAI error shape (the status line has gone out).
 */
export async function* speechEvents(speech: PreparedSpeech, input: string, signal: AbortSignal): AsyncGenerator<string> {
  let samples = 0
  async function* count(events: ReturnType<PreparedSpeech['render']>) {
    for await (const event of events) {
      if (event.type === 'audio') samples += event.samples.length
      yield event
    }
  }
  const counting: PreparedSpeech = { ...speech, render: (s, dueAt, words) => count(speech.render(s, dueAt, words)) }
  let sent = false
  try {
    for await (const bytes of encodedAudio(counting, signal)) {
      sent = true
      yield `data: ${JSON.stringify({ type: 'speech.audio.delta', audio: Buffer.from(bytes).toString('base64') })}\n\n`
    }
  } catch (err) {
    if (!sent || isAbortError(err) || signal.aborted) throw err
    yield `data: ${JSON.stringify({ type: 'error', ...openAiErrorBody(toSpeechError(err)) })}\n\n`
    return
  }
  const inputTokens = Math.ceil(input.length / 4)
  const outputTokens = Math.ceil(samples / (speech.outputRate * 0.02))
  const usage: SpeechUsage = { input_tokens: inputTokens, output_tokens: outputTokens, total_tokens: inputTokens + outputTokens }
  yield `data: ${JSON.stringify({ type: 'speech.audio.done', usage })}\n\n`
}
