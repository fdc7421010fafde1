import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Deps } from '../deps.js'
import type { QuotaNeed, QuotaTicket } from '../services/account/quota.js'

/**
 * Admits an HTTP request against its account's quota (a 429 with `Retry-After` otherwise, through the
 * surface's error handler) and releases it when the response is over: sent in full, failed, or cut off by a
 * client that went away. Call it after the body is read and checked, before the work starts.
 */
export async function admitHttp(deps: Deps, request: FastifyRequest, reply: FastifyReply, need: QuotaNeed): Promise<QuotaTicket> {
  const ticket = await deps.quota.admit(request.principal, need)
  const res = reply.raw
  // 'finish' (all handed to the OS) comes before the client can see the end and send its next request.
  const release = () => void ticket.release()
  res.once('finish', release).once('close', release)
  // The client may have gone while admission waited on the database: 'close' has then fired already.
  if (res.destroyed || request.raw.socket?.destroyed) await ticket.release()
  return ticket
}
