import type { EventEmitter } from 'node:events'
import type { FastifyRequest } from 'fastify'
import type { WebSocket } from 'ws'

/** The close code for a message over the size limit (RFC 6455 §7.4.1). */
export const TOO_BIG_CLOSE_CODE = 1009

/**
 * `ws` reports what a peer sent wrong (a message over `maxPayload`, bad UTF-8, a broken frame) as an error
 * whose code starts with `WS_ERR_`, after it has sent the close frame with the code that says why; it then
 * finishes the closing handshake itself. Terminating the socket here, as @fastify/websocket's default handler
 * does, would turn that answer into a bare 1006 at the client.
 */
const isPeerProtocolError = (err: unknown): boolean => {
  const code = (err as { code?: unknown } | null)?.code
  return typeof code === 'string' && code.startsWith('WS_ERR_')
}

/** @fastify/websocket's `errorHandler` for every WebSocket route. */
export function websocketErrorHandler(error: Error, socket: WebSocket, request: FastifyRequest): void {
  if (isPeerProtocolError(error)) {
    request.log.info({ code: (error as { code?: string }).code, msg: error.message }, 'websocket closed: the client broke the protocol')
    return
  }
  request.log.error({ err: error }, 'websocket failed')
  socket.terminate()
}

/**
 * Gives the 1009 close a reason that says what to do. `ws` closes with the bare code as soon as a frame header
 * announces more than `maxPayload`, before the payload arrives, so the reason is sent from a listener that runs
 * just before its own (on the receiver, which `ws` does not expose; without it the close stays a bare 1009).
 */
export function explainOversizedMessages(socket: WebSocket, maxBytes: number): void {
  const receiver = (socket as unknown as { _receiver?: EventEmitter | null })._receiver
  receiver?.prependListener('error', (err: unknown) => {
    if ((err as { code?: unknown }).code !== 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH' || socket.readyState !== socket.OPEN) return
    const mb = Math.floor(maxBytes / (1024 * 1024))
    socket.close(TOO_BIG_CLOSE_CODE, `message over ${mb > 0 ? `${mb} MB` : `${maxBytes} bytes`}; send smaller messages`)
  })
}
