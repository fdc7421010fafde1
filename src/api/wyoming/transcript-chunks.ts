import type { Deps } from '../../deps.js'
import { isAbortError } from '../../errors.js'
import type { LiveSession } from '../../services/asr/live/session.js'
import type { IncomingAudio } from './transcription.js'

/** Audio a Wyoming client may send ahead of recognition (it often sends a recording as fast as it can). */
const BACKLOG_SEC = 600

/**
 * Words while the user speaks: the utterance's audio also goes to a live recognition session, whose words
 * that stopped changing go out as `transcript-chunk` events (each appends to the text before it). The final
 * `transcript` still comes from the whole-utterance route, so a client that waits only for it gets the same
 * text as before. The session decodes in the utterance's place in the recognition line (`admitted`): nothing
 * is sent, not even `transcript-start`, unless the utterance was admitted. Mono audio only (the live path
 * takes one channel); undefined otherwise.
 */
export function startTranscriptChunks(
  deps: Deps, audio: IncomingAudio, language: string | undefined, admitted: Promise<unknown>,
  send: (type: string, data?: Record<string, unknown>) => Promise<void>,
): { push(payload: Uint8Array): void; stop(): Promise<void>; close(): void } | undefined {
  if (audio.channels !== 1) return undefined
  let live: LiveSession
  try {
    live = deps.asr.openLive({ inputRate: audio.rate, ...(language && { language }), turns: null, maxBacklogSec: BACKLOG_SEC, place: admitted })
  } catch {
    // An unsupported language: the whole-utterance route answers it with its error.
    return undefined
  }
  let started = false
  let sent = false
  // Sends go out in order; a closed connection fails them quietly (its transcription is aborted anyway).
  let queue = admitted.then(async () => {
    started = true
    await send('transcript-start', { ...(language && { language }) })
  }).catch(() => {})
  const forwarded = (async () => {
    for await (const event of live.events()) {
      if (event.type !== 'partial' || event.delta === '') continue
      const text = sent ? event.delta : event.delta.trimStart()
      sent = true
      queue = queue.then(() => send('transcript-chunk', { text })).catch(() => {})
    }
  })()
  let failed = false
  return {
    push(payload) {
      if (failed) return
      try {
        live.append(payload)
      } catch {
        // Chunks are a preview: a frame the live path refuses ends them; the transcript is still made.
        failed = true
        live.close()
      }
    },
    /** Ends the preview: `transcript-stop` after the last chunk, when it had started. */
    async stop() {
      live.close()
      await forwarded
      await queue
      if (!started) return
      await send('transcript-stop').catch((err: unknown) => {
        if (!isAbortError(err)) throw err
      })
    },
    close() {
      live.close()
    },
  }
}
