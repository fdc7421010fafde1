import type { WebSocket } from 'ws'

export interface HeartbeatOptions {
  /** How often the server pings, in ms; 0 for never. */
  readonly intervalMs: number
  /** Called for the client's own pings and pongs (heartbeats): the client is there and means to stay. */
  readonly onActivity: () => void
}

/**
 * Keeps a live socket honest in both directions. Client heartbeats (aiohttp pings every 30 s in LiveKit's
 * pooled socket, websockets every 20 s in Pipecat) count as activity, so a silent but present client is never
 * idle-closed; `ws` answers them with pongs by itself. The server pings too: a peer that has not answered one
 * ping by the time the next is due is gone (no FIN ever came), and its socket is terminated, which aborts its
 * work. Pongs that answer the server's own ping prove the peer is alive but are not the client's activity, or
 * the idle timeout could never fire for a client that has simply stopped using its socket.
 */
export function startHeartbeat(socket: WebSocket, options: HeartbeatOptions): () => void {
  let awaitingPong = false
  socket.on('ping', () => options.onActivity())
  socket.on('pong', () => {
    if (awaitingPong) awaitingPong = false
    else options.onActivity()
  })
  if (options.intervalMs <= 0) return () => {}
  const timer = setInterval(() => {
    if (socket.readyState !== socket.OPEN) return
    if (awaitingPong) {
      socket.terminate()
      return
    }
    awaitingPong = true
    socket.ping()
  }, options.intervalMs)
  timer.unref()
  return () => clearInterval(timer)
}
