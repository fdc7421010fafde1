import type { Command } from 'commander'
import { join, resolve } from 'node:path'
import { buildApp } from '../app.js'
import { startWyomingServer, type WyomingServer } from '../api/wyoming/server.js'
import { createDeps } from '../deps.js'
import { ensureFirstKey } from './bootstrap-key.js'
import { addConfigFlags } from './config-flags.js'
import { configFromOptions } from './context.js'
import { generateMissingSamples, seedBuiltinVoices } from '../voices/seed.js'

export function registerServeCommand(program: Command): void {
  addConfigFlags(program.command('serve').description('start the API server')).action(async (options) => {
    const config = configFromOptions(options)
    const deps = await createDeps(config)
    const key = await ensureFirstKey(deps.keys, config.dataDir)
    const app = await buildApp(deps, { logger: { level: config.logLevel } })
    // Start the engines and list their voices as built-in voice models before taking requests.
    const voices = await seedBuiltinVoices(deps.models.repo, deps.keys, deps.speech.engines)
    const background = new AbortController()
    app.addHook('onClose', async () => background.abort())
    let wyoming: WyomingServer | undefined
    let closing = false
    const shutdown = async (signal: string) => {
      if (closing) return
      closing = true
      app.log.info({ signal }, 'shutting down')
      await wyoming?.close()
      await app.close()
      await deps.close()
      process.exit(0)
    }
    process.on('SIGINT', () => void shutdown('SIGINT'))
    process.on('SIGTERM', () => void shutdown('SIGTERM'))
    const address = await app.listen({ host: config.host, port: config.port })
    // Wyoming (Home Assistant): off unless a port is set; no authentication, so loopback unless configured.
    if (config.wyomingPort > 0) wyoming = await startWyomingServer(deps, { host: config.wyomingHost, port: config.wyomingPort, log: app.log })
    app.log.info({ voices: voices.length }, 'built-in voices ready')
    // Speech recognition loads one decoder per core (seconds): do it now, not on the first request.
    deps.asr.warm().then(
      () => app.log.info('speech recognition ready'),
      (err) => !background.signal.aborted && app.log.warn({ err }, 'could not start speech recognition; /v1/asr retries on use'),
    )
    generateMissingSamples(voices, deps.speech.engines, deps.blobs, background.signal).then(
      (made) => made > 0 && app.log.info({ made }, 'generated built-in voice samples'),
      (err) => !background.signal.aborted && app.log.warn({ err }, 'could not generate built-in voice samples'),
    ).then(() => deps.speech.baseProfiles.warm(background.signal)).then(
      () => !background.signal.aborted && app.log.info('voice cloning ready (built-in voices measured)'),
      (err) => !background.signal.aborted && app.log.warn({ err }, 'could not measure built-in voices; cloning measures them on use'),
    )
    if (key) {
      process.stdout.write(
        `\nNo API key existed, so Parla created one (shown only now; also saved to ${join(resolve(config.dataDir), 'api-key')}):\n\n  ${key}\n\n` +
          `Try: curl -H "Authorization: Bearer $(cat ${join(config.dataDir, 'api-key')})" ${address}/model\n\n`,
      )
    }
  })
}
