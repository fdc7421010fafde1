import type { FastifyRequest } from 'fastify'
import type { Deps } from '../../deps.js'
import type { QuotaNeed, QuotaTicket } from '../../services/account/quota.js'

/**
 * Admits a live socket's upgrade against its account's quota: one request, and one concurrent slot held
 * until the TCP connection closes (whether the upgrade went through or not), so a client that vanishes
 * frees it with its connection.
 */
export async function admitSocket(deps: Deps, request: FastifyRequest, need?: QuotaNeed): Promise<QuotaTicket> {
  const ticket = await deps.quota.admit(request.principal, need)
  const connection = request.raw.socket
  connection.once('close', () => void ticket.release())
  if (connection.destroyed) await ticket.release()
  return ticket
}
