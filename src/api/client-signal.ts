import type { FastifyReply } from 'fastify'

/**
 * An AbortSignal that fires when the client goes away before the response is complete. It watches the
 * response socket rather than the request (a request's 'close' also fires once its body has been read).
 */
export function clientSignal(reply: FastifyReply): AbortSignal {
  const controller = new AbortController()
  const res = reply.raw
  const onClose = () => {
    if (!res.writableFinished) controller.abort(new DOMException('client disconnected', 'AbortError'))
  }
  res.once('close', onClose)
  return controller.signal
}
