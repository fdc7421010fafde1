import type { PreparedSpeech } from '../../services/tts/service.js'
import { isAbortError, toSpeechError } from '../../errors.js'
import { openAiErrorBody } from '../openai-error-wire.js'

/**
 * Encoded audio of a prepared request as it is produced. In-process encoders return bytes from `push`;
 * encoders in a child process (aac, flac) are fed by a pump while their `output` is read, so bytes leave as
 * the child writes them. When the consumer stops (client gone), rendering stops and the child is killed.
 */
export async function* encodedAudio(speech: PreparedSpeech, signal: AbortSignal): AsyncGenerator<Uint8Array> {
  const session = speech.newEncoderSession()
  const output = session.output
  if (!output) {
    for await (const event of speech.render(signal)) {
      if (event.type !== 'audio') continue
      const bytes = session.push(event.samples)
      if (bytes.length > 0) yield bytes
    }
    const last = session.end()
    if (last.length > 0) yield last
    return
  }
  const stop = new AbortController()
  let failure: unknown
  const pump = (async () => {
    try {
      for await (const event of speech.render(AbortSignal.any([signal, stop.signal]))) {
        if (event.type === 'audio') session.push(event.samples)
      }
    } catch (err) {
      failure = err
    } finally {
      session.end()
    }
  })()
  try {
    for await (const bytes of output) {
      if (failure) throw failure
      yield bytes
    }
    await pump
    if (failure) throw failure
  } finally {
    stop.abort()
    await pump
  }
}

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
  const counting: PreparedSpeech = { ...speech, render: (s, dueAt) => count(speech.render(s, dueAt)) }
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
