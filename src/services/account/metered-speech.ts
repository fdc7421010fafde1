import type { PreparedSpeech } from '../tts/service.js'
import type { QuotaTicket } from './quota.js'

/** `speech` whose rendered audio counts as TTS output seconds on `ticket` (written when it is released). */
export function meteredSpeech(speech: PreparedSpeech, ticket: QuotaTicket): PreparedSpeech {
  async function* metered(events: ReturnType<PreparedSpeech['render']>) {
    for await (const event of events) {
      if (event.type === 'audio') void ticket.record({ speechSeconds: event.samples.length / speech.outputRate })
      yield event
    }
  }
  return { ...speech, render: (signal, dueAt, words) => metered(speech.render(signal, dueAt, words)) }
}
