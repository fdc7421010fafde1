import type { EventEmitter } from 'node:events'
import { hostname } from 'node:os'
import { Bonjour } from 'bonjour-service'
import type { FastifyBaseLogger } from 'fastify'

/** Home Assistant's Wyoming integration discovers servers by this mDNS service type (`_wyoming._tcp.local`). */
export const WYOMING_SERVICE_TYPE = 'wyoming'

export interface ZeroconfAnnouncement {
  /** Sends the goodbye (TTL 0) records, so browsers drop the service at once, and closes the mDNS socket. */
  stop(): Promise<void>
}

/** The advertised instance name: the setting, or `parla-<host name>` so two machines do not clash. */
export function zeroconfName(setting: string): string {
  const name = setting.trim() || `parla-${hostname().split('.')[0] ?? 'host'}`
  // A DNS label is at most 63 bytes.
  return Buffer.from(name).subarray(0, 63).toString('utf8').replace(/\uFFFD$/, '')
}

/** Loopback addresses: a service bound there cannot be reached from another machine, so it is not announced. */
export const isLoopback = (host: string) => host === 'localhost' || host === '::1' || /^127\./.test(host)

/**
 * Announces the Wyoming server on mDNS as `<name>._wyoming._tcp.local` with this machine's addresses, as the
 * Wyoming servers Home Assistant knows do. mDNS failures (no multicast, port 5353 refused) are logged; they
 * never stop the server.
 */
export function announceWyoming(options: { name: string; port: number; log: FastifyBaseLogger }): ZeroconfAnnouncement {
  const { log, port } = options
  const name = zeroconfName(options.name)
  const warn = (err: unknown) => log.warn({ err }, 'wyoming zeroconf: mDNS error; Home Assistant will not discover this server (add it by host and port)')
  const bonjour = new Bonjour({}, warn)
  // multicast-dns emits socket errors as events; the library leaves them unhandled, which would end the process.
  ;(bonjour as unknown as { server: { mdns: EventEmitter } }).server.mdns.on('error', warn).on('warning', (err: unknown) => log.debug({ err }, 'wyoming zeroconf: mDNS warning'))
  const service = bonjour.publish({ name, type: WYOMING_SERVICE_TYPE, protocol: 'tcp', port })
  service.on('up', () => log.info({ name, type: `_${WYOMING_SERVICE_TYPE}._tcp.local`, port }, 'wyoming server announced on mDNS (zeroconf)'))
  service.on('error', warn)
  return {
    stop: () => new Promise<void>((resolve) => {
      bonjour.unpublishAll(() => bonjour.destroy(() => resolve()))
    }),
  }
}
