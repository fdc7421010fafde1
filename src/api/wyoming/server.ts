import { createServer, type Server, type Socket } from 'node:net'
import type { FastifyBaseLogger } from 'fastify'
import type { Deps } from '../../deps.js'
import { handleWyomingConnection } from './session.js'
import { announceWyoming, isLoopback, type ZeroconfAnnouncement } from './zeroconf.js'

export interface WyomingServer {
  /** The port it listens on (the setting, or the one the OS chose for port 0 in tests). */
  readonly port: number
  /** Connections open now (a client that went away must not be counted for long). */
  connections(): number
  close(): Promise<void>
}

/**
 * The Wyoming TCP server (Home Assistant's local voice protocol): one port for TTS and ASR, as Home
 * Assistant's integration takes one host and port per service and asks each what it offers. Wyoming has no
 * authentication: it binds to `host` (loopback by default) and acts as no account (public voices only).
 */
export async function startWyomingServer(
  deps: Deps,
  options: { host: string; port: number; log: FastifyBaseLogger; /** Announce on mDNS under this name ('' = default). */ zeroconf?: string },
): Promise<WyomingServer> {
  const sockets = new Set<Socket>()
  const server: Server = createServer((socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    socket.setNoDelay(true)
    // A peer that neither sends nor reads (a half-dead connection) is dropped, as idle live sessions are.
    socket.setTimeout(deps.config.liveIdleTimeoutSec * 1000, () => socket.destroy())
    handleWyomingConnection(socket, deps, options.log)
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => reject(new Error(
      `[wyoming] cannot listen on ${options.host}:${options.port} (${err.code ?? err.message}); set wyomingPort to a free port, or 0 to turn Wyoming off`,
      { cause: err })))
    server.listen(options.port, options.host, () => {
      server.removeAllListeners('error')
      server.on('error', (err) => options.log.error({ err }, 'wyoming server error'))
      resolve()
    })
  })
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : options.port
  options.log.info({ host: options.host, port }, 'wyoming server listening (no authentication)')
  let announcement: ZeroconfAnnouncement | undefined
  if (options.zeroconf !== undefined && isLoopback(options.host)) {
    options.log.info({ host: options.host }, 'wyoming server not announced on mDNS: it listens on loopback only; set wyomingHost to 0.0.0.0 (or a LAN address) for Home Assistant to discover it')
  } else if (options.zeroconf !== undefined) announcement = announceWyoming({ name: options.zeroconf, port, log: options.log })
  return {
    port,
    connections: () => sockets.size,
    async close() {
      await announcement?.stop()
      const done = new Promise<void>((resolve) => server.close(() => resolve()))
      for (const socket of sockets) socket.destroy()
      await done
    },
  }
}
