import type { PreparedSpeech } from '../tts/service.js'
import type { QuotaTicket } from './quota.js'

/** `speech` whose rendered audio counts as TTS output seconds on `ticket` (written when it is released). */
export function meteredSpeech(speech: PreparedSpeech, ticket: QuotaTicket): PreparedSpeech {
  const metered: PreparedSpeech = Object.create(speech)
  metered.render = async function* (signal, dueAt) {
    for await (const event of speech.render(signal, dueAt)) {
      if (event.type === 'audio') void ticket.record({ speechSeconds: event.samples.length / speech.outputRate })
      yield event
    }
  }
  return metered
}
