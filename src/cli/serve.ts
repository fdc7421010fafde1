import type { Command } from 'commander'
import { join, resolve } from 'node:path'
import type { Config } from '../config/schema.js'
import { logProcessWarnings, stdoutSink } from '../logger.js'
import { ensureFirstKey } from './bootstrap-key.js'
import { addConfigFlags } from './config-flags.js'
import { configFromOptions } from './context.js'
import { EXIT } from './exit.js'

export function registerServeCommand(program: Command): void {
  addConfigFlags(program.command('serve').description('start the API server')).action(async (options) => {
    const config = configFromOptions(options)
    const { handleSignals, startServer } = await import('../server.js')
    let key: string | null = null
    // The key is in its file before the listener opens: a script that waits for /healthz then reads it finds it.
    const server = await startServer(config, {}, { beforeListen: async (deps) => void (key = await ensureFirstKey(deps.keys, config.dataDir)) }).catch((err: unknown) => {
      // Start-up failures are the operator's to fix (a port in use, a database that is not there): one line
      // that says what to change, not a stack trace. Exit at once: half-started engines may hold the loop.
      process.stderr.write(`parla: cannot start: ${startupProblem(err, config)}\n`)
      process.exit(EXIT.failed)
    })
    handleSignals(server)
    logProcessWarnings(server.deps.logger)
    if (key) {
      const file = join(config.dataDir, 'api-key')
      // Through the log's sink: a reader that is gone or stuck neither stops nor stalls the server.
      stdoutSink().write(
        `\nNo API key existed, so Parla created one (shown only now; also saved to ${resolve(file)}):\n\n  ${key}\n\n` +
          `Try: curl -H "Authorization: Bearer $(cat ${file})" ${server.address}/model\n\n`,
      )
    }
  })
}

/** What went wrong and which setting changes it. */
export function startupProblem(err: unknown, config: Config): string {
  const e = err as NodeJS.ErrnoException & { address?: string; port?: number }
  const wyoming = config.wyomingPort > 0 && e.port === config.wyomingPort
  const flag = wyoming ? '--wyoming-port (PARLA_WYOMING_PORT)' : '--port (PARLA_PORT)'
  const where = `${e.address ?? (wyoming ? config.wyomingHost : config.host)}:${e.port ?? config.port}`
  if (e.code === 'EADDRINUSE') return `${where} is already in use by another program; stop it, or choose another port with ${flag}`
  if (e.code === 'EACCES') return `no permission to listen on ${where}; choose a port above 1023 with ${flag}`
  if (e.code === 'EADDRNOTAVAIL') return `${where} is not an address of this machine; check --host (PARLA_HOST)`
  return err instanceof Error ? err.message : String(err)
}
