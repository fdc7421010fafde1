import type { FastifyReply } from 'fastify'
import type { Deps } from '../deps.js'
import type { AdmissionTicket, StreamSurface } from '../services/admission/admission.js'

/**
 * A place for one HTTP stream (`Deps.admission`), held until its response ends or its client goes away.
 * `chars`, the text's length, is its expected work. Throws the 503 (with `Retry-After`) when the node stays full.
 */
export async function admitStream(deps: Deps, reply: FastifyReply, surface: StreamSurface, signal: AbortSignal, chars: number): Promise<AdmissionTicket> {
  const ticket = await deps.admission.admit(surface, signal, { chars })
  // Also when the body never started (a client gone before the first read): the place is never lost.
  reply.raw.once('close', () => ticket.release())
  return ticket
}

/** `body` under `ticket`: its first piece marks the stream's first audio; its end frees the place. */
export async function* admitted<T>(ticket: AdmissionTicket, body: AsyncGenerator<T>): AsyncGenerator<T> {
  try {
    for await (const piece of body) {
      ticket.firstAudio()
      yield piece
    }
  } finally {
    ticket.release()
  }
}
