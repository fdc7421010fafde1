import type { Command } from 'commander'
import { join, resolve } from 'node:path'
import { handleSignals, startServer } from '../server.js'
import { ensureFirstKey } from './bootstrap-key.js'
import { addConfigFlags } from './config-flags.js'
import { configFromOptions } from './context.js'

export function registerServeCommand(program: Command): void {
  addConfigFlags(program.command('serve').description('start the API server')).action(async (options) => {
    const config = configFromOptions(options)
    const server = await startServer(config)
    handleSignals(server)
    const key = await ensureFirstKey(server.deps.keys, config.dataDir)
    if (key) {
      const file = join(config.dataDir, 'api-key')
      process.stdout.write(
        `\nNo API key existed, so Parla created one (shown only now; also saved to ${resolve(file)}):\n\n  ${key}\n\n` +
          `Try: curl -H "Authorization: Bearer $(cat ${file})" ${server.address}/model\n\n`,
      )
    }
  })
}
