import { Bonjour, type Service } from 'bonjour-service'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startWyomingServer } from '../src/api/wyoming/server.js'
import { zeroconfName } from '../src/api/wyoming/zeroconf.js'
import { startTestServer, type TestServer } from './helpers/app.js'
import { captureLogs } from './support/log-capture.js'
import { wyomingClient } from './helpers/wyoming-client.js'

/**
 * Zeroconf for Home Assistant, for real: the Wyoming server announces `_wyoming._tcp` on multicast DNS, and a
 * browser on this machine (multicast loops back to local sockets) finds it, connects to the address and port
 * it was given and gets `info`, as Home Assistant's discovery does. Closing sends the goodbye records.
 */
let s: TestServer
const browser = new Bonjour()
beforeAll(async () => {
  s = await startTestServer()
})
afterAll(async () => {
  await new Promise<void>((resolve) => browser.destroy(() => resolve()))
  await s.close()
})

/** Resolves with the first service of `type` named `name` the browser sees, and its `down` as a promise. */
function discover(name: string): Promise<{ service: Service; down: Promise<void> }> {
  return new Promise((resolve) => {
    const b = browser.find({ type: 'wyoming', protocol: 'tcp' })
    let downResolve: () => void
    const down = new Promise<void>((r) => (downResolve = r))
    b.on('up', (service: Service) => {
      if (service.name === name) resolve({ service, down })
    })
    b.on('down', (service: Service) => {
      if (service.name === name) downResolve()
    })
  })
}

describe('zeroconf (mDNS) announcement', () => {
  it('is browsable as _wyoming._tcp with its port; the advertised address answers describe; closing says goodbye', async () => {
    // A name no other run on this network uses, so a parallel run cannot be mistaken for this one.
    const name = `parla-test-${process.pid}-${Date.now().toString(36)}`
    const found = discover(name)
    const wyoming = await startWyomingServer(s.deps, { host: '0.0.0.0', port: 0, log: s.app.log, zeroconf: name })
    let closed = false
    try {
      const { service, down } = await found
      expect(service.port).toBe(wyoming.port)
      expect(service.type).toBe('wyoming')
      const ipv4 = (service.addresses ?? []).filter((a) => /^\d+\.\d+\.\d+\.\d+$/.test(a))
      expect(ipv4.length).toBeGreaterThan(0)
      const c = await wyomingClient(wyoming.port, ipv4[0])
      c.send('describe')
      expect((await c.next()).type).toBe('info')
      c.close()
      await wyoming.close()
      closed = true
      await down
    } finally {
      if (!closed) await wyoming.close()
    }
  }, 60_000)

  it('is not announced when the server listens on loopback only, and the log says how to change that', async () => {
    const { logger, lines } = captureLogs()
    const wyoming = await startWyomingServer(s.deps, { host: '127.0.0.1', port: 0, log: logger, zeroconf: '' })
    await wyoming.close()
    expect(lines.some((l) => /not announced on mDNS.*wyomingHost/.test(l.msg))).toBe(true)
    expect(lines.some((l) => /announced on mDNS \(zeroconf\)/.test(l.msg))).toBe(false)
  })

  it('names the service after the setting, or parla-<host name>, within a DNS label', () => {
    expect(zeroconfName('Kitchen Parla')).toBe('Kitchen Parla')
    expect(zeroconfName('')).toMatch(/^parla-./)
    expect(Buffer.byteLength(zeroconfName('é'.repeat(40)))).toBeLessThanOrEqual(63)
  })
})
