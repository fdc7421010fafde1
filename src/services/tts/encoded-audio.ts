import type { PreparedSpeech } from './service.js'

/**
 * Encoded audio of a prepared request as it is produced. In-process encoders return bytes from `push`;
 * encoders in a child process (aac, flac) are fed by a pump while their `output` is read, so bytes leave as
 * the child writes them. When the consumer stops (client gone), rendering stops and the child is killed.
 */
export async function* encodedAudio(speech: PreparedSpeech, signal: AbortSignal): AsyncGenerator<Uint8Array> {
  const session = speech.newEncoderSession()
  const output = session.output
  if (!output) {
    // Audio only: no engine need find word timings for it.
    for await (const event of speech.render(signal, undefined, false)) {
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
      for await (const event of speech.render(AbortSignal.any([signal, stop.signal]), undefined, false)) {
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
